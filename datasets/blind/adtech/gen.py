#!/usr/bin/env python3
"""Generate history.jsonl: a made-up incident history for Larkspur DSP.

Everything here is fictional. Standard library only, deterministic: running
it twice writes the same bytes. The answer key (`truth`) of every incident is
derived from its failure group and the state of the catalog at its time (which
runbooks exist, which are stale after a migration, which failed before in the
same group), never written by hand per incident.
"""
import json
import os
import re
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def fmt(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Topology: an edge means "calls".
# ---------------------------------------------------------------------------
TOPOLOGY = [
    ("bid-gateway", ["bidder"]),
    ("bidder", ["profile-store", "feature-store", "campaign-service", "budget-pacer", "event-bus"]),
    ("budget-pacer", ["event-bus", "campaign-service"]),
    ("campaign-service", ["creative-cdn"]),
    ("event-tracker", ["event-bus"]),
    ("reporting-etl", ["event-bus", "reporting-warehouse"]),
    ("advertiser-console", ["campaign-service", "budget-pacer", "reporting-warehouse"]),
    ("segment-loader", ["reporting-warehouse", "profile-store"]),
    ("profile-store", []),
    ("feature-store", []),
    ("creative-cdn", []),
    ("event-bus", []),
    ("reporting-warehouse", []),
]


def topology_yaml():
    lines = []
    for svc, deps in TOPOLOGY:
        lines.append("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------
AS_TOOLS = "aerospike/aerospike-tools:10.2.1"
KUBECTL = "bitnami/kubectl:1.30"
AWSCLI = "amazon/aws-cli:2.15.30"
CAMPAIGNCTL = "registry.larkspur.internal/campaignctl:4.2.0"
GWCTL = "registry.larkspur.internal/gwctl:2.7.1"
PACERCTL = "registry.larkspur.internal/pacerctl:3.3.0"
SEGCTL = "registry.larkspur.internal/segctl:1.9.4"
KAFKA_OLD = "confluentinc/cp-kafka:6.2.4"
KAFKA_NEW = "registry.larkspur.internal/kafka-tools-msk-iam:3.6.1"
FLINK = "flink:1.18.1"


def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


RUNBOOKS = {}

RUNBOOKS["aerospike-quiesce-slow-node"] = {
    "title": "Quiesce one slow profile-store node so its replicas serve the reads",
    "services": ["profile-store", "bidder"],
    "symptoms": ["latency-spike", "timeout"],
    "steps": [
        step("confirm-no-migrations", AS_TOOLS,
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show statistics service like migrate_partitions_remaining"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show statistics service like migrate_partitions_remaining"],
             [], "low", "read-only", 15),
        step("quiesce-node", AS_TOOLS,
             ["asinfo", "-h", "$(NODE)", "-v", "quiesce:"],
             ["asinfo", "-h", "$(NODE)", "-v", "namespace/profiles"],
             ["asinfo", "-h", "$(NODE)", "-v", "quiesce-undo:"],
             "medium", "one profile-store node; its partitions are served by their replicas", 20),
        step("recluster", AS_TOOLS,
             ["asinfo", "-h", "$(SEED_HOST)", "-v", "recluster:"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "info network"],
             ["sh", "-c", "asinfo -h $(NODE) -v quiesce-undo: && asinfo -h $(SEED_HOST) -v recluster:"],
             "medium", "profile-store cluster: one partition map change", 60),
    ],
}

RUNBOOKS["aerospike-throttle-migrations"] = {
    "title": "Slow profile-store partition migrations down while bidding is at peak",
    "services": ["profile-store", "bidder"],
    "symptoms": ["latency-spike", "timeout"],
    "steps": [
        step("show-migrations", AS_TOOLS,
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show statistics service like migrate"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show statistics service like migrate"],
             [], "low", "read-only", 15),
        step("lower-migrate-threads", AS_TOOLS,
             ["asadm", "-h", "$(SEED_HOST)", "--enable", "-e", "manage config service param migrate-threads to $(THREADS)"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show config service like migrate-threads"],
             ["asadm", "-h", "$(SEED_HOST)", "--enable", "-e", "manage config service param migrate-threads to 4"],
             "low", "all profile-store nodes; migrations take longer to finish", 20),
        step("limit-incoming-migrations", AS_TOOLS,
             ["asadm", "-h", "$(SEED_HOST)", "--enable", "-e", "manage config service param migrate-max-num-incoming to 1"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show config service like migrate-max-num-incoming"],
             ["asadm", "-h", "$(SEED_HOST)", "--enable", "-e", "manage config service param migrate-max-num-incoming to 4"],
             "low", "all profile-store nodes", 20),
        step("check-read-latency", AS_TOOLS,
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show latencies -m read"],
             ["asadm", "-h", "$(SEED_HOST)", "-e", "show latencies -m read"],
             [], "low", "read-only", 30),
    ],
}

RUNBOOKS["campaign-pin-last-good-snapshot"] = {
    "title": "Pin bidders to the last good campaign index snapshot and hold the line items that bloated it",
    "services": ["campaign-service", "bidder"],
    "symptoms": ["gc-pause", "oom-kill", "memory-pressure", "latency-spike"],
    "steps": [
        step("find-oversized-line-items", CAMPAIGNCTL,
             ["campaignctl", "snapshot", "diff", "--from", "$(LAST_GOOD_SNAPSHOT)", "--to", "latest", "--top", "20"],
             ["campaignctl", "snapshot", "diff", "--from", "$(LAST_GOOD_SNAPSHOT)", "--to", "latest", "--top", "20"],
             [], "low", "read-only", 40),
        step("pin-snapshot", CAMPAIGNCTL,
             ["campaignctl", "snapshot", "pin", "--version", "$(LAST_GOOD_SNAPSHOT)", "--all-regions"],
             ["campaignctl", "snapshot", "pin", "--version", "$(LAST_GOOD_SNAPSHOT)", "--all-regions", "--dry-run"],
             ["campaignctl", "snapshot", "unpin", "--all-regions"],
             "medium", "every bidder serves campaign data as of the pinned snapshot; newer edits wait", 120),
        step("hold-line-items", CAMPAIGNCTL,
             ["campaignctl", "lineitem", "hold", "--ids", "$(LINE_ITEM_IDS)", "--reason", "index-size"],
             ["campaignctl", "lineitem", "hold", "--ids", "$(LINE_ITEM_IDS)", "--reason", "index-size", "--dry-run"],
             ["campaignctl", "lineitem", "release", "--ids", "$(LINE_ITEM_IDS)"],
             "medium", "the listed line items stop bidding", 20),
        step("unpin-when-clean", CAMPAIGNCTL,
             ["campaignctl", "snapshot", "unpin", "--all-regions", "--require-max-size", "600MB"],
             ["campaignctl", "snapshot", "build", "--dry-run", "--report-size"],
             ["campaignctl", "snapshot", "pin", "--version", "$(LAST_GOOD_SNAPSHOT)", "--all-regions"],
             "low", "every bidder", 180),
    ],
}

RUNBOOKS["bidder-scale-out-fleet"] = {
    "title": "Raise the bidder fleet's replica ceiling for a surge spread over all exchanges",
    "services": ["bidder", "bid-gateway"],
    "symptoms": ["cpu-saturation", "timeout", "qps-surge"],
    "steps": [
        step("check-surge-spread", GWCTL,
             ["gwctl", "exchange", "stats", "--all", "--window", "15m"],
             ["gwctl", "exchange", "stats", "--all", "--window", "15m"],
             [], "low", "read-only", 15),
        step("raise-hpa-max", KUBECTL,
             ["kubectl", "-n", "rtb", "patch", "hpa", "bidder", "--type", "merge", "-p",
              "{\"spec\":{\"maxReplicas\":$(MAX_REPLICAS)}}"],
             ["kubectl", "-n", "rtb", "patch", "hpa", "bidder", "--type", "merge", "-p",
              "{\"spec\":{\"maxReplicas\":$(MAX_REPLICAS)}}", "--dry-run=server"],
             ["kubectl", "-n", "rtb", "patch", "hpa", "bidder", "--type", "merge", "-p",
              "{\"spec\":{\"maxReplicas\":$(PREVIOUS_MAX_REPLICAS)}}"],
             "medium", "bidder fleet in one region", 60),
        step("raise-nodegroup-max", AWSCLI,
             ["aws", "eks", "update-nodegroup-config", "--cluster-name", "$(CLUSTER)", "--nodegroup-name",
              "bidder-c7i", "--scaling-config", "maxSize=$(MAX_NODES)"],
             ["aws", "eks", "describe-nodegroup", "--cluster-name", "$(CLUSTER)", "--nodegroup-name", "bidder-c7i"],
             ["aws", "eks", "update-nodegroup-config", "--cluster-name", "$(CLUSTER)", "--nodegroup-name",
              "bidder-c7i", "--scaling-config", "maxSize=$(PREVIOUS_MAX_NODES)"],
             "medium", "bidder node group in one region (cost)", 300),
    ],
}

RUNBOOKS["bidgw-cap-exchange-qps"] = {
    "title": "Limit one exchange's request rate at the bid gateway and drop its duplicate requests",
    "services": ["bid-gateway", "bidder"],
    "symptoms": ["qps-surge", "cpu-saturation", "timeout"],
    "steps": [
        step("confirm-single-exchange", GWCTL,
             ["gwctl", "exchange", "stats", "--all", "--window", "15m", "--show-duplicates"],
             ["gwctl", "exchange", "stats", "--all", "--window", "15m", "--show-duplicates"],
             [], "low", "read-only", 15),
        step("set-exchange-limit", GWCTL,
             ["gwctl", "exchange", "limit", "set", "$(EXCHANGE)", "--max-qps", "$(MAX_QPS)", "--region", "$(REGION)"],
             ["gwctl", "exchange", "limit", "set", "$(EXCHANGE)", "--max-qps", "$(MAX_QPS)", "--region", "$(REGION)",
              "--dry-run"],
             ["gwctl", "exchange", "limit", "clear", "$(EXCHANGE)", "--region", "$(REGION)"],
             "medium", "one exchange: requests above the limit get an immediate no-bid", 30),
        step("drop-duplicate-requests", GWCTL,
             ["gwctl", "exchange", "dedupe", "enable", "$(EXCHANGE)", "--window", "500ms", "--region", "$(REGION)"],
             ["gwctl", "exchange", "dedupe", "status", "$(EXCHANGE)", "--region", "$(REGION)"],
             ["gwctl", "exchange", "dedupe", "disable", "$(EXCHANGE)", "--region", "$(REGION)"],
             "low", "one exchange", 20),
    ],
}

RUNBOOKS["kafka-vm-grow-log-volume"] = {
    "title": "Shorten topic retention and grow a self-hosted Kafka broker's log volume",
    "services": ["event-bus"],
    "symptoms": ["disk-full", "replication-lag", "data-loss"],
    "steps": [
        step("shorten-topic-retention", KAFKA_OLD,
             ["kafka-configs", "--zookeeper", "zk-use-1:2181/kafka", "--alter", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)", "--add-config", "retention.ms=$(RETENTION_MS),retention.bytes=$(RETENTION_BYTES)"],
             ["kafka-configs", "--zookeeper", "zk-use-1:2181/kafka", "--describe", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)"],
             ["kafka-configs", "--zookeeper", "zk-use-1:2181/kafka", "--alter", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)", "--add-config", "retention.ms=$(PREVIOUS_RETENTION_MS)"],
             "medium", "one topic: data older than the new retention is deleted", 30),
        step("modify-ebs-volume", AWSCLI,
             ["aws", "ec2", "modify-volume", "--volume-id", "$(VOLUME_ID)", "--size", "$(SIZE_GB)"],
             ["aws", "ec2", "describe-volumes", "--volume-ids", "$(VOLUME_ID)"],
             [], "medium", "one broker's log volume (EBS cannot shrink)", 600),
        step("resize-filesystem", "alpine/ssh:9.6",
             ["ssh", "$(BROKER_HOST)", "sudo", "resize2fs", "/dev/nvme1n1"],
             ["ssh", "$(BROKER_HOST)", "df", "-h", "/var/kafka-logs"],
             [], "medium", "one broker host", 60),
    ],
}

RUNBOOKS["msk-grow-broker-storage"] = {
    "title": "Shorten topic retention and add storage to the MSK brokers",
    "services": ["event-bus"],
    "symptoms": ["disk-full", "replication-lag", "data-loss"],
    "steps": [
        step("shorten-topic-retention", KAFKA_NEW,
             ["kafka-configs", "--bootstrap-server", "$(BOOTSTRAP)", "--command-config", "/etc/kafka/iam.properties",
              "--alter", "--entity-type", "topics", "--entity-name", "$(TOPIC)", "--add-config",
              "retention.ms=$(RETENTION_MS),retention.bytes=$(RETENTION_BYTES)"],
             ["kafka-configs", "--bootstrap-server", "$(BOOTSTRAP)", "--command-config", "/etc/kafka/iam.properties",
              "--describe", "--entity-type", "topics", "--entity-name", "$(TOPIC)"],
             ["kafka-configs", "--bootstrap-server", "$(BOOTSTRAP)", "--command-config", "/etc/kafka/iam.properties",
              "--alter", "--entity-type", "topics", "--entity-name", "$(TOPIC)", "--add-config",
              "retention.ms=$(PREVIOUS_RETENTION_MS)"],
             "medium", "one topic: data older than the new retention is deleted", 30),
        step("update-broker-storage", AWSCLI,
             ["aws", "kafka", "update-broker-storage", "--cluster-arn", "$(CLUSTER_ARN)", "--current-version",
              "$(CLUSTER_VERSION)", "--target-broker-ebs-volume-info", "KafkaBrokerNodeId=All,VolumeSizeGB=$(SIZE_GB)"],
             ["aws", "kafka", "describe-cluster-v2", "--cluster-arn", "$(CLUSTER_ARN)"],
             [], "medium", "all brokers of the MSK cluster (storage only grows)", 900),
    ],
}

PACER_RESYNC_V1 = {
    "title": "Get the pacer's spend-event consumers moving again and count the spend they missed",
    "services": ["budget-pacer", "event-bus"],
    "symptoms": ["overspend", "consumer-lag"],
    "steps": [
        step("describe-group", KAFKA_OLD,
             ["kafka-consumer-groups", "--bootstrap-server", "$(BOOTSTRAP)", "--describe", "--group", "pacer-spend",
              "--state"],
             ["kafka-consumer-groups", "--bootstrap-server", "$(BOOTSTRAP)", "--describe", "--group", "pacer-spend",
              "--state"],
             [], "low", "read-only", 15),
        step("restart-spend-consumers", KUBECTL,
             ["kubectl", "-n", "pacing", "rollout", "restart", "deployment/pacer-spend-consumer"],
             ["kubectl", "-n", "pacing", "get", "pods", "-l", "app=pacer-spend-consumer", "-o", "wide"],
             [], "low", "spend counting pauses for about a minute", 90),
        step("replay-spend-from-ledger", PACERCTL,
             ["pacerctl", "ledger", "replay", "--since", "$(SINCE)", "--group", "pacer-spend"],
             ["pacerctl", "ledger", "replay", "--since", "$(SINCE)", "--group", "pacer-spend", "--dry-run"],
             [], "medium", "spend counters of every campaign in the group; budgets catch up at once", 600),
    ],
}

PACER_RESYNC_V2 = {
    "title": "Get the pacer's spend-event consumers moving again and count the spend they missed (rev 2: every regional group, over-budget line items held first)",
    "services": ["budget-pacer", "event-bus"],
    "symptoms": ["overspend", "consumer-lag"],
    "steps": [
        step("hold-over-budget-line-items", PACERCTL,
             ["pacerctl", "lineitems", "hold", "--over-budget-pct", "100", "--region", "$(REGION)", "--by", "pacer-resync"],
             ["pacerctl", "lineitems", "hold", "--over-budget-pct", "100", "--region", "$(REGION)", "--dry-run"],
             ["pacerctl", "lineitems", "release", "--held-by", "pacer-resync", "--region", "$(REGION)"],
             "medium", "line items already over their daily budget stop bidding", 30),
        step("describe-groups", KAFKA_NEW,
             ["kafka-consumer-groups", "--bootstrap-server", "$(BOOTSTRAP)", "--describe", "--group", "$(GROUP)", "--state"],
             ["kafka-consumer-groups", "--bootstrap-server", "$(BOOTSTRAP)", "--describe", "--group", "$(GROUP)", "--state"],
             [], "low", "read-only", 15),
        step("restart-spend-consumers", KUBECTL,
             ["kubectl", "-n", "pacing", "rollout", "restart", "deployment/pacer-spend-consumer-$(REGION)"],
             ["kubectl", "-n", "pacing", "get", "pods", "-l", "app=pacer-spend-consumer,region=$(REGION)", "-o", "wide"],
             [], "low", "spend counting in one region pauses for about a minute", 90),
        step("replay-spend-from-ledger", PACERCTL,
             ["pacerctl", "ledger", "replay", "--since", "$(SINCE)", "--group", "$(GROUP)"],
             ["pacerctl", "ledger", "replay", "--since", "$(SINCE)", "--group", "$(GROUP)", "--dry-run"],
             [], "medium", "spend counters of every campaign in the group; budgets catch up at once", 600),
        step("release-held-line-items", PACERCTL,
             ["pacerctl", "lineitems", "release", "--held-by", "pacer-resync", "--region", "$(REGION)", "--if-under-budget"],
             ["pacerctl", "lineitems", "list", "--held-by", "pacer-resync", "--region", "$(REGION)"],
             ["pacerctl", "lineitems", "hold", "--over-budget-pct", "100", "--region", "$(REGION)", "--by", "pacer-resync"],
             "low", "held line items that are still under budget", 30),
    ],
}
RUNBOOKS["pacer-resync-spend-consumer"] = PACER_RESYNC_V1

RUNBOOKS["pacer-restore-pacing-checkpoint"] = {
    "title": "Load the latest valid pacing checkpoint into the budget pacer",
    "services": ["budget-pacer", "bidder"],
    "symptoms": ["underdelivery", "no-bid", "bid-rate-drop"],
    "steps": [
        step("list-valid-checkpoints", PACERCTL,
             ["pacerctl", "state", "checkpoints", "--region", "$(REGION)", "--validate", "--last", "12"],
             ["pacerctl", "state", "checkpoints", "--region", "$(REGION)", "--validate", "--last", "12"],
             [], "low", "read-only", 20),
        step("load-checkpoint", PACERCTL,
             ["pacerctl", "state", "load", "--checkpoint", "$(CHECKPOINT)", "--region", "$(REGION)"],
             ["pacerctl", "state", "load", "--checkpoint", "$(CHECKPOINT)", "--region", "$(REGION)", "--dry-run"],
             ["pacerctl", "state", "load", "--checkpoint", "$(PREVIOUS_CHECKPOINT)", "--region", "$(REGION)"],
             "medium", "pacing multipliers of every campaign in one region", 120),
        step("verify-multipliers", PACERCTL,
             ["pacerctl", "state", "summary", "--region", "$(REGION)"],
             ["pacerctl", "state", "summary", "--region", "$(REGION)"],
             [], "low", "read-only", 15),
    ],
}

RUNBOOKS["segments-rerun-bulk-load"] = {
    "title": "Extend audience segment TTLs and load segments again from the last good partition",
    "services": ["segment-loader", "profile-store"],
    "symptoms": ["underdelivery", "job-failure", "stale-data"],
    "steps": [
        step("extend-segment-ttl", SEGCTL,
             ["segctl", "ttl", "extend", "--set", "segments", "--hours", "24"],
             ["segctl", "ttl", "extend", "--set", "segments", "--hours", "24", "--dry-run"],
             [], "low", "segment records in profile-store live one more day", 300),
        step("run-load", SEGCTL,
             ["segctl", "load", "run", "--partition", "$(PARTITION)", "--export-splits", "$(SPLITS)"],
             ["segctl", "load", "plan", "--partition", "$(PARTITION)", "--export-splits", "$(SPLITS)"],
             [], "medium", "segment set in profile-store; write load on every node", 2400),
        step("check-match-rate", SEGCTL,
             ["segctl", "stats", "match-rate", "--window", "30m"],
             ["segctl", "stats", "match-rate", "--window", "30m"],
             [], "low", "read-only", 30),
    ],
}

RUNBOOKS["reporting-etl-restart-from-checkpoint"] = {
    "title": "Restart the reporting-etl Flink job from its last completed checkpoint with relaxed checkpoint settings",
    "services": ["reporting-etl", "reporting-warehouse"],
    "symptoms": ["report-delay", "checkpoint-failure", "consumer-lag"],
    "steps": [
        step("find-last-completed-checkpoint", "curlimages/curl:8.7.1",
             ["curl", "-s", "http://$(JOBMANAGER):8081/jobs/$(JOB_ID)/checkpoints"],
             ["curl", "-s", "http://$(JOBMANAGER):8081/jobs/$(JOB_ID)/checkpoints"],
             [], "low", "read-only", 10),
        step("cancel-job", FLINK,
             ["flink", "cancel", "-m", "$(JOBMANAGER):8081", "$(JOB_ID)"],
             ["flink", "list", "-r", "-m", "$(JOBMANAGER):8081"],
             [], "medium", "reporting freshness pauses for every advertiser until the job is back", 30),
        step("start-from-checkpoint", FLINK,
             ["flink", "run", "-d", "-m", "$(JOBMANAGER):8081", "-s", "$(CHECKPOINT_PATH)",
              "-Dexecution.checkpointing.timeout=30min", "-Dexecution.checkpointing.unaligned=true",
              "/opt/jobs/reporting-etl-enrich.jar"],
             ["flink", "info", "/opt/jobs/reporting-etl-enrich.jar"],
             ["flink", "cancel", "-m", "$(JOBMANAGER):8081", "$(NEW_JOB_ID)"],
             "medium", "reporting-etl job; catches up the backlog into the warehouse", 600),
    ],
}

RUNBOOKS["argo-rollback-service"] = {
    "title": "Roll one service back to its previous Argo Rollouts revision",
    "services": ["bidder", "bid-gateway", "campaign-service", "budget-pacer", "event-tracker",
                 "advertiser-console", "reporting-etl"],
    "symptoms": ["5xx", "error-rate", "latency-spike"],
    "steps": [
        step("show-rollout", KUBECTL,
             ["kubectl", "argo", "rollouts", "get", "rollout", "$(SERVICE)", "-n", "$(NAMESPACE)"],
             ["kubectl", "argo", "rollouts", "get", "rollout", "$(SERVICE)", "-n", "$(NAMESPACE)"],
             [], "low", "read-only", 10),
        step("undo-rollout", KUBECTL,
             ["kubectl", "argo", "rollouts", "undo", "$(SERVICE)", "-n", "$(NAMESPACE)"],
             ["kubectl", "argo", "rollouts", "get", "rollout", "$(SERVICE)", "-n", "$(NAMESPACE)", "--watch=false"],
             ["kubectl", "argo", "rollouts", "undo", "$(SERVICE)", "-n", "$(NAMESPACE)", "--to-revision",
              "$(CURRENT_REVISION)"],
             "medium", "one service in one region", 300),
    ],
}

# ---------------------------------------------------------------------------
# Migrations (stale runbooks from `at` on)
# ---------------------------------------------------------------------------
MIGRATIONS = [
    {"name": "event-bus-vm-kafka-to-msk", "at": "2025-06-14T06:00:00Z", "spec": {
        "targetService": "event-bus",
        "migrationDate": "2025-06-14",
        "oldArch": "Self-managed Apache Kafka 2.8 with ZooKeeper on six EC2 hosts (kafka-use-01..06), EBS log volumes, ssh access",
        "newArch": "Amazon MSK provisioned cluster (Kafka 3.6), IAM auth, storage changed only through the MSK API, no host access",
        "impactedRunbooks": ["kafka-vm-grow-log-volume"],
        "impactedFixKeywords": ["resize2fs", "ssh kafka-use", "--zookeeper", "aws ec2 modify-volume"],
        "confidenceDeduction": 30,
    }},
]

# ---------------------------------------------------------------------------
# Failure groups. A group is one failure under one condition. `fixes` is the
# ordered list of runbooks that fix it; the right runbook at a time is the
# last one that exists then and is not stale. Groups that share a family
# share the `family` name (they are the two sides of a contradiction).
# ---------------------------------------------------------------------------
GROUPS = {
    "PROFN": {"family": "PROF", "fixes": ["aerospike-quiesce-slow-node"],
              "what": "one profile-store node's device is slow (defrag backlog, failing or buggy NVMe); no migrations"},
    "PROFM": {"family": "PROF", "fixes": ["aerospike-throttle-migrations"],
              "what": "profile-store partition migrations after a node was added, replaced or rejoined, during peak"},
    "SNAP": {"family": "SNAP", "fixes": ["campaign-pin-last-good-snapshot"],
             "what": "campaign index snapshot bloated by a huge targeting list; bidder heap, GC pauses, OOM kills"},
    "SURGEO": {"family": "SURGE", "fixes": ["bidder-scale-out-fleet"],
               "what": "organic bid request surge across all exchanges; bidder fleet at its replica ceiling"},
    "SURGED": {"family": "SURGE", "fixes": ["bidgw-cap-exchange-qps"],
               "what": "one exchange sends duplicated or unfiltered requests; the whole fleet saturates"},
    "EVDISK": {"family": "EVDISK", "fixes": ["kafka-vm-grow-log-volume", "msk-grow-broker-storage"],
               "what": "event-bus broker disks fill from a topic's retention; ISR shrinks, producers drop events"},
    "OVER": {"family": "OVER", "fixes": ["pacer-resync-spend-consumer"],
             "what": "budget-pacer's spend-event consumers stall; spend is not counted; campaigns overspend"},
    "UNDER": {"family": "UNDER", "fixes": ["pacer-restore-pacing-checkpoint"],
              "what": "budget-pacer starts from empty pacing state; multiplier 0; campaigns stop delivering"},
    "SEG": {"family": "SEG", "fixes": ["segments-rerun-bulk-load"],
            "what": "daily audience segment load fails or loads nothing; segments expire; audience line items stop"},
    "REPORT": {"family": "REPORT", "fixes": ["reporting-etl-restart-from-checkpoint"],
               "what": "reporting-etl Flink checkpoints time out; the job loops; console reporting goes stale"},
    "IVT": {"family": "IVT", "fixes": [], "what": "one-off: IVT list flags a mobile carrier range; clicks filtered"},
    "CDNCT": {"family": "CDNCT", "fixes": [], "what": "one-off: CDN serves HTML5 creatives with a wrong Content-Type"},
    "FX": {"family": "FX", "fixes": ["argo-rollback-service"],
           "what": "one-off: bidder release converts JPY bid prices twice"},
}


def page_labels(alertname, severity, namespace, cluster, region, team, **extra):
    d = {"source": "alertmanager", "alertname": alertname, "severity": severity, "namespace": namespace,
         "cluster": cluster, "region": region, "team": team}
    d.update(extra)
    return d


def human_labels(source, team, region, **extra):
    d = {"source": source, "team": team, "region": region}
    d.update(extra)
    return d


def rb(name, detail=""):
    return "run runbook %s%s" % (name, (" " + detail) if detail else "")


# Incidents in time order. Each: key, group, at, style, spec fields, outcome.
# actions: (text, result, runbook-or-None)
INCIDENTS = []


def inc(key, group, at, style, service, severity, title, description, symptoms, errs, labels,
        started, deployment=None, outcome=None, repage_of=None):
    INCIDENTS.append({"key": key, "group": group, "at": at, "style": style, "service": service,
                      "severity": severity, "title": title, "description": description,
                      "symptoms": symptoms, "errs": errs, "labels": labels, "started": started,
                      "deployment": deployment, "outcome": outcome, "repage_of": repage_of})


def out(delay, root, summary, actions, by, runbook):
    return {"delay": delay, "root": root, "summary": summary, "actions": actions, "by": by, "runbook": runbook}


def dep(id_, rev, minutes, env="production"):
    return {"id": id_, "revision": rev, "environment": env, "minutesSinceDeploy": minutes}


# ---------------------------------------------------------------------------
# The incidents
# ---------------------------------------------------------------------------
inc("REPORT1", "REPORT", "2025-01-06T09:40:00Z", "human", "advertiser-console", "medium",
    "Console numbers stuck since early morning, Fennel & Vine asking",
    "Rachel (AM for Fennel & Vine) says the Delivery tab hasn't moved since roughly 03:00 UTC. "
    "Yesterday's impressions stop at about 61% of what the exchange invoices show so far. Other advertisers "
    "look the same: the 'last updated' badge says 6h 40m ago. Bidding itself looks normal in Grafana.",
    ["stale-data", "report-delay"], [],
    human_labels("slack", "console", "us-east", reporter="am-rachel"), 35,
    outcome=out(190,
        "reporting-etl (the Flink job that joins impressions and clicks to bids and loads the warehouse) "
        "was stuck in checkpoint timeouts after its dedup state grew over the holiday weekend; every restart "
        "went back to a seven-hour-old checkpoint and timed out again.",
        "Console reporting was 6-7 hours stale for every advertiser. reporting-etl checkpoints took longer "
        "than the 10-minute timeout once dedup state passed 200 GB, so the job restarted in a loop from an "
        "old checkpoint. Restarting TaskManagers alone did nothing. Cancelling the job and starting it from "
        "the last completed checkpoint with a 30-minute timeout and unaligned checkpoints cleared the backlog "
        "in 70 minutes.",
        [("restart the reporting-etl TaskManager pods", "failed", None),
         (rb("reporting-etl-restart-from-checkpoint"), "succeeded", "reporting-etl-restart-from-checkpoint")],
        "jun.w", "reporting-etl-restart-from-checkpoint"))

inc("PROFN1", "PROFN", "2025-01-09T20:12:00Z", "page", "bidder", "critical",
    "[FIRING:1] BidderTimeoutRateHigh bidder-us-east",
    "Bid response timeouts 4.8% of requests over 5m (threshold 2%)",
    ["timeout"],
    ["sum(rate(bidder_timeouts_total[5m])) / sum(rate(bidder_requests_total[5m])) > 0.02"],
    page_labels("BidderTimeoutRateHigh", "critical", "rtb", "bidder-us-east", "us-east", "rtb"), 4,
    outcome=out(50,
        "One profile-store node (as-use-04) had NVMe read latency of 30-40 ms after its defrag queue backed "
        "up; every bidder profile lookup that landed on its partitions blew the 10 ms profile budget.",
        "Bid timeouts rose to 4.8% in us-east. Per-node Aerospike histograms showed one slow node, as-use-04, "
        "with no migrations running. Restarting a fifth of the bidder pods changed nothing. Quiescing "
        "as-use-04 moved reads to the replicas and timeouts fell under 1% within four minutes; the node was "
        "drained of its defrag backlog and put back overnight.",
        [("restart 20% of bidder pods in us-east", "failed", None),
         (rb("aerospike-quiesce-slow-node", "on as-use-04"), "succeeded", "aerospike-quiesce-slow-node")],
        "marcus.o", "aerospike-quiesce-slow-node"))

inc("OVER1", "OVER", "2025-01-14T15:05:00Z", "human", "budget-pacer", "high",
    "Quarry Outdoor overspent daily budget by ~60%",
    "Luis (AM) escalated: Quarry Outdoor's 'Winter Clearance' campaign has a $40k daily budget and the console "
    "shows $64.3k spent by 14:00 UTC. Two other campaigns on the same agency seat are at 130-145%. Pacer "
    "dashboards show the spend counters flat since about 08:20, so spend isn't being counted and the bidder "
    "still gets budget tokens.",
    ["overspend", "consumer-lag"],
    ["pacer-spend-consumer: Rebalance in progress; rejoining group pacer-spend",
     "CommitFailedException: Commit cannot be completed since the group has already rebalanced"],
    human_labels("slack", "pacing", "us-east", reporter="am-luis"), 50,
    outcome=out(240,
        "budget-pacer's spend-event consumers (group pacer-spend) were in a rebalance loop: ledger writes "
        "slowed, each poll loop went past max.poll.interval.ms, members were kicked out, and no spend event "
        "was applied for six hours.",
        "Three campaigns overspent by 30-60% because the pacer stopped counting spend at 08:20. Raising "
        "max.poll.interval.ms only slowed the churn. By hand we held the three over-budget line items, "
        "restarted the consumer deployment with static membership, and replayed spend events from the "
        "ledger since 08:15; counters caught up and the holds were released the next day. Credits issued.",
        [("raise max.poll.interval.ms on pacer-spend consumers to 10 minutes", "partial", None),
         ("by hand: hold the three over-budget line items, restart the pacer-spend consumer deployment, "
          "replay spend from the ledger since 08:15", "succeeded", None)],
        "priya.n", None))

inc("UNDER1", "UNDER", "2025-01-17T07:22:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderNoBidRateHigh bidder-us-east reason=pacing",
    "No-bid rate with reason pacing_budget at 71% over 15m (baseline 9%)",
    ["no-bid"], [],
    page_labels("BidderNoBidRateHigh", "warning", "rtb", "bidder-us-east", "us-east", "rtb", reason="pacing"), 6,
    outcome=out(85,
        "budget-pacer pods were rescheduled during a node pool upgrade and loaded a checkpoint written "
        "empty (the checkpoint writer crashed mid-upload at 05:58); every campaign started with a pacing "
        "multiplier of 0.",
        "Almost every campaign stopped bidding in us-east at 06:10. The pacer had come back from a node pool "
        "upgrade on an empty checkpoint. Loading the 05:00 checkpoint (the last valid one) brought the "
        "multipliers back and the no-bid rate to baseline in ten minutes.",
        [(rb("pacer-restore-pacing-checkpoint", "with checkpoint 05:00"), "succeeded", "pacer-restore-pacing-checkpoint")],
        "tobias.k", "pacer-restore-pacing-checkpoint"))

inc("SNAP1", "SNAP", "2025-01-22T18:47:00Z", "page", "bidder", "critical",
    "[FIRING:1] BidderGCPauseHigh bidder-us-east",
    "Go GC pause p99 at 210ms on 142/160 bidder pods (threshold 50ms)",
    ["gc-pause"], [],
    page_labels("BidderGCPauseHigh", "critical", "rtb", "bidder-us-east", "us-east", "rtb"), 5,
    deployment=dep("bidder-7.9.2", "7.9.2", 52),
    outcome=out(125,
        "campaign-service published a 1.4 GB index snapshot (normally about 380 MB) after a PixelNest Games "
        "line item was saved with a 1.2 million-entry app bundle allowlist; every bidder loaded it, heap "
        "doubled, and GC pauses ate the 80 ms bid budget.",
        "Bidder GC pauses went to 200+ ms fleet-wide. Bidder 7.9.2 had shipped 52 minutes earlier and was "
        "suspected, but going back to 7.9.1 changed nothing: the trouble was data, not code. The snapshot diff "
        "showed one PixelNest line item with a 1.2M-entry app allowlist. By hand we had campaign-service "
        "serve snapshot v88213 to the bidders and held that line item; heap and GC were normal in 15 minutes.",
        [(rb("argo-rollback-service", "for bidder 7.9.2 -> 7.9.1"), "failed", "argo-rollback-service"),
         ("by hand: serve index snapshot v88213 to all bidders and hold the PixelNest line item", "succeeded", None)],
        "elena.r", None))

inc("SEG1", "SEG", "2025-01-28T10:15:00Z", "human", "campaign-service", "medium",
    "Brisa Cosmetics retargeting line items stopped spending overnight",
    "From am-rachel: all 14 retargeting line items for Brisa Cosmetics (cart abandoners, past purchasers) went "
    "from about $9k/day to basically zero after midnight UTC. Prospecting line items on the same campaign "
    "deliver fine. Nothing was edited in the console since last week.",
    ["underdelivery"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-rachel"), 70,
    outcome=out(1560,
        "The nightly segment load failed at 01:10 because the data partner (Arclight Data) renamed a column "
        "in their drop; yesterday's segments reached their 36 h TTL in profile-store, so audience line items "
        "matched nobody.",
        "Retargeting and other audience line items stopped delivering after midnight because their segments "
        "had expired. segment-loader had failed on a renamed partner column and nobody was paged. We fixed the "
        "column mapping, extended segment TTLs and loaded segments again from the 01-27 partition; match rate "
        "was back at 40% in an hour.",
        [("patch the Arclight column mapping in the segment-loader config", "succeeded", None),
         (rb("segments-rerun-bulk-load", "from partition 2025-01-27"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("EV1", "EVDISK", "2025-02-03T03:31:00Z", "page", "event-bus", "high",
    "[FIRING:1] KafkaBrokerDiskUsageHigh kafka-use-03",
    "Log dir /var/kafka-logs 94% used on kafka-use-03 (threshold 85%)",
    ["disk-full"], [],
    page_labels("KafkaBrokerDiskUsageHigh", "warning", "data", "event-bus-use", "us-east", "data-platform",
                instance="kafka-use-03:9100", job="node-exporter"), 3,
    outcome=out(135,
        "Topic bid-logs-v2 was recreated on Jan 30 without retention.bytes and kept 7 days of segments "
        "2.3x larger than in December; three of six brokers filled, leaders on them went offline briefly and "
        "event-tracker producers got NOT_ENOUGH_REPLICAS.",
        "Three self-hosted Kafka brokers reached 94-100% disk. Restarting Kafka on kafka-use-03 bought 20 "
        "minutes before it filled again. By hand we set retention.ms to 72 h plus a retention.bytes limit on "
        "bid-logs-v2 with kafka-configs, grew the EBS log volumes from 4 to 6 TB and ran resize2fs on the "
        "three brokers; ISR recovered within the hour.",
        [("restart the kafka service on kafka-use-03", "failed", None),
         ("by hand: set retention on bid-logs-v2, grow the EBS volumes of kafka-use-01/03/05 and resize2fs",
          "succeeded", None)],
        "sven.l", None))

inc("SURGEO1", "SURGEO", "2025-02-09T23:52:00Z", "human", "bidder", "critical",
    "Bidder fleet pegged during the game, timeouts 6%+",
    "Super Bowl traffic is here. All five exchanges are up 30-45% vs last Sunday, bid-gateway is forwarding "
    "fine, but bidder-us-east CPU is at 96% across the fleet and the timeout rate went from 1.1% to 6.4% in 15 "
    "min. HPA is already at its max (160). Profile-store and feature-store latency look normal.",
    ["cpu-saturation", "timeout", "qps-surge"], [],
    human_labels("slack", "rtb", "us-east", reporter="marcus.o"), 20,
    outcome=out(40,
        "Organic traffic surge across every exchange during the Super Bowl broadcast; the bidder HPA ceiling "
        "(160 pods) was sized for a normal Sunday peak.",
        "Every exchange grew 30-45% at once and the bidder fleet hit its HPA ceiling at 96% CPU. Raising the "
        "HPA max from 160 to 240 and the node group with it brought CPU to 70% and timeouts under 1% in 12 "
        "minutes.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 160 -> 240"), "succeeded", "bidder-scale-out-fleet")],
        "marcus.o", "bidder-scale-out-fleet"))

inc("OVER2", "OVER", "2025-02-12T04:10:00Z", "page", "budget-pacer", "high",
    "[FIRING:1] PacerSpendEventLagHigh budget-pacer",
    "Consumer group pacer-spend lag 2.1M events (threshold 200k) for 20m",
    ["consumer-lag"], [],
    page_labels("PacerSpendEventLagHigh", "warning", "pacing", "pacing-us-east", "us-east", "pacing",
                group="pacer-spend"), 6,
    outcome=out(65,
        "Two pacer-spend consumer pods were wedged on a ledger write with no timeout; the group sat in "
        "PreparingRebalance waiting for them and no spend was counted.",
        "The pacer's spend consumer group stopped making progress at 03:40. Loading the last pacing "
        "checkpoint was tried first and did nothing: pacing state was fine, spend was simply not being "
        "counted. Restarting the consumers and replaying spend from the ledger since 03:35 cleared 2.1M "
        "events in 9 minutes; 11 line items ended the day 5-12% over budget.",
        [(rb("pacer-restore-pacing-checkpoint"), "failed", "pacer-restore-pacing-checkpoint"),
         (rb("pacer-resync-spend-consumer", "since 03:35"), "succeeded", "pacer-resync-spend-consumer")],
        "jun.w", "pacer-resync-spend-consumer"))

inc("SURGED1", "SURGED", "2025-02-17T14:20:00Z", "human", "bid-gateway", "critical",
    "Pylon traffic tripled, bidder saturated, other exchanges timing out",
    "Since ~13:50 UTC Pylon Exchange is sending 410k QPS (normal weekday is 130k). The other exchanges are flat. "
    "bidder-us-east is at 90%+ CPU and the timeout rate is 5% on ALL exchanges, not just Pylon. In the gateway "
    "sample log the same request IDs show up 2-3 times within 300 ms.",
    ["qps-surge", "cpu-saturation", "timeout"],
    ["bidgw: duplicate request id seen within 500ms exchange=pylon"],
    human_labels("slack", "rtb", "us-east", reporter="amara.d"), 30,
    outcome=out(95,
        "Pylon deployed a retry change that re-sent each bid request up to three times when our response took "
        "over 60 ms; the duplicates saturated the fleet, responses got slower, and Pylon retried more.",
        "One exchange's retries tripled its traffic and took the whole bidder fleet down with it. Raising the "
        "fleet from 160 to 240 pods made it worse: the new pods saturated within minutes and Pylon's retries "
        "grew with our capacity. By hand we set a 150k QPS limit for Pylon in the gateway's exchange config and "
        "dropped duplicate request IDs; timeouts were under 1% in 10 minutes. Pylon fixed their retry logic the "
        "next day.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 160 -> 240"), "failed", "bidder-scale-out-fleet"),
         ("by hand: limit Pylon to 150k QPS in the bid-gateway exchange config and drop duplicate request ids",
          "succeeded", None)],
        "amara.d", None))

inc("REPORT2", "REPORT", "2025-02-20T02:05:00Z", "page", "reporting-etl", "high",
    "[FIRING:1] FlinkCheckpointFailures reporting-etl",
    "6 consecutive checkpoint failures (timeout 10m) on job reporting-etl-enrich",
    ["checkpoint-failure"], [],
    page_labels("FlinkCheckpointFailures", "warning", "data", "data-us-east", "us-east", "data-platform",
                job="reporting-etl-enrich"), 4,
    outcome=out(75,
        "S3 returned SlowDown on the checkpoint bucket prefix; checkpoints timed out at 10 minutes and "
        "the job restarted from older checkpoints in a loop.",
        "reporting-etl checkpoints failed six times in a row while S3 throttled the checkpoint prefix. "
        "Starting the job again from the last completed checkpoint with a 30-minute timeout got a checkpoint "
        "through; lag was gone by 03:40.",
        [(rb("reporting-etl-restart-from-checkpoint"), "succeeded", "reporting-etl-restart-from-checkpoint")],
        "sven.l", "reporting-etl-restart-from-checkpoint"))

inc("PROFM1", "PROFM", "2025-02-25T19:40:00Z", "human", "bidder", "high",
    "Bid timeouts after adding the two new profile-store nodes",
    "We added as-use-07 and as-use-08 to profile-us-east at 18:30 for the Q1 capacity bump. Since ~19:00 bidder "
    "timeouts are 3.5% and climbing, profile lookups p99 22 ms across all nodes (budget 10 ms). Reads look slow "
    "everywhere, not on one box. Evening peak starts in an hour.",
    ["timeout", "latency-spike"],
    ["profile lookup exceeded budget: 10ms (aerospike: TIMEOUT)"],
    human_labels("slack", "rtb", "us-east", reporter="tobias.k"), 40,
    outcome=out(2620,
        "Partition migrations after two nodes joined profile-us-east: at four migrate threads the fill traffic "
        "competed with peak reads on every node.",
        "Bid timeouts rose after two nodes were added to the profile store. Following the January fix, "
        "as-use-02 (the slowest-looking node) was quiesced: its partitions started migrating too and p99 went "
        "from 22 to 41 ms, timeouts to 7%. Undoing that, and then setting migrate-threads to 0 until 02:00 UTC "
        "and to 1 overnight, brought p99 back to 3 ms. Migrations finished the next morning.",
        [(rb("aerospike-quiesce-slow-node", "on as-use-02"), "failed", "aerospike-quiesce-slow-node"),
         ("asinfo quiesce-undo on as-use-02 and recluster", "succeeded", None),
         ("by hand: asinfo set-config migrate-threads=0 until 02:00 UTC, then 1", "succeeded", None)],
        "tobias.k", None))

inc("EV2", "EVDISK", "2025-02-27T11:02:00Z", "page", "event-tracker", "high",
    "[FIRING:1] TrackerKafkaProduceErrors event-tracker-us-east",
    "Produce error rate 12% (NOT_ENOUGH_REPLICAS) from impression trackers over 10m",
    ["data-loss"],
    ["org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer "
     "in-sync replicas than required."],
    page_labels("TrackerKafkaProduceErrors", "critical", "tracking", "tracking-us-east", "us-east", "tracking"), 5,
    outcome=out(185,
        "A 100% debug sample of raw bid requests (topic bidreq-samples) was left on after a Meridian "
        "integration test; it wrote 9 TB in two days and filled kafka-use-01, -02 and -05, so ISR shrank and "
        "the trackers' acks=all produces failed.",
        "Impression trackers lost about 12% of events for 40 minutes because three brokers were full. The "
        "cause was a debug sampling topic left at 100%. By hand we cut bidreq-samples retention to 6 h, turned "
        "the sampling flag off, grew the three EBS log volumes and ran resize2fs. Lost events were backfilled "
        "from tracker access logs.",
        [("by hand: bidreq-samples retention 6h, sampling flag off, grow EBS volumes of kafka-use-01/02/05 "
          "and resize2fs", "succeeded", None)],
        "sven.l", None))

inc("SNAP2", "SNAP", "2025-03-06T08:30:00Z", "human", "bidder", "critical",
    "bidder-eu-west pods OOMKilled in a loop",
    "Started ~08:05. 38 of 60 bidder pods in eu-west restarted at least twice, OOMKilled at 6Gi. The ones that "
    "come up take 90s to load the campaign index and then die. us-east is fine so far but heap there is at 82%.",
    ["oom-kill", "crash-loop"],
    ["campaign index: loaded snapshot v91544 (1.9 GB) in 74s", "OOMKilled"],
    human_labels("slack", "rtb", "eu-west", reporter="elena.r"), 25,
    outcome=out(60,
        "An agency bulk upload created 38,000 line items, each with its own postal code list (2.1M codes in "
        "total); the index snapshot grew to 1.9 GB.",
        "Bidders in eu-west crash-looped on OOM because the campaign index snapshot had grown to 1.9 GB from "
        "an agency bulk upload. Pinning bidders to snapshot v91502 and holding the uploaded line items ended "
        "the crash loop in 6 minutes; the agency re-uploaded with shared geo lists.",
        [(rb("campaign-pin-last-good-snapshot", "to v91502"), "succeeded", "campaign-pin-last-good-snapshot")],
        "elena.r", "campaign-pin-last-good-snapshot"))

inc("UNDER2", "UNDER", "2025-03-10T13:45:00Z", "human", "advertiser-console", "high",
    "30+ campaigns flat since this morning: Northwind, Halcyon, Oakridge",
    "AMs report Northwind Motors, Halcyon Travel and Oakridge Bank all flat since ~06:00 UTC. Budgets are not "
    "exhausted (console shows 3-8% spent), targeting unchanged, creatives approved. The console Pacing tab "
    "shows 'pace: 0.00' on every line item.",
    ["underdelivery", "no-bid"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-luis"), 60,
    outcome=out(115,
        "Clock skew: a budget-pacer pod on a node with a broken chrony read the 05:00 checkpoint as coming from "
        "the future, discarded it and started from an empty state; multiplier 0 everywhere.",
        "Campaigns stopped delivering at 06:00 because the pacer threw away a valid checkpoint (its node's "
        "clock was 3 hours ahead) and paced everything at 0. Restarting the pacer put it back on the same node "
        "with the same result. After cordoning that node, loading the 05:00 checkpoint fixed pacing at once.",
        [("restart budget-pacer pods", "failed", None),
         ("cordon the node with the broken chrony", "succeeded", None),
         (rb("pacer-restore-pacing-checkpoint", "with checkpoint 05:00"), "succeeded", "pacer-restore-pacing-checkpoint")],
        "priya.n", "pacer-restore-pacing-checkpoint"))

inc("SEG2", "SEG", "2025-03-13T06:20:00Z", "page", "segment-loader", "medium",
    "[FIRING:1] SegmentLoadJobFailed segment-loader",
    "Job segment-load-daily-20250313 failed after 3 attempts",
    ["job-failure"],
    ["warehouse export: Query exceeded resource limits: 4h timeout"],
    page_labels("SegmentLoadJobFailed", "warning", "data", "data-us-east", "us-east", "data-platform",
                job="segment-load-daily"), 5,
    outcome=out(230,
        "The warehouse export query for segment membership timed out after a partner table doubled in size; "
        "the load never ran and segments were in their last hours of TTL.",
        "The daily segment load failed on a warehouse export timeout. Segments were extended by a day and the "
        "load was run again with the export split in four; it finished before the old segments expired, so no "
        "campaign lost delivery.",
        [(rb("segments-rerun-bulk-load", "with 4 export splits"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("OVER3", "OVER", "2025-03-18T16:30:00Z", "human", "advertiser-console", "high",
    "Halcyon Travel spent 2x budget on Tessera, need numbers for credits",
    "AM luis: Halcyon's spring promo line items on Tessera spent $18.2k against a $9k daily budget today. "
    "Console spend graph is a straight line since 11:00.",
    ["overspend"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-luis"), 45,
    outcome=out(170,
        "A budget-pacer release changed the spend consumer group id to pacer-spend-v2; the new group started "
        "at the latest offset and the old one stopped, so spend between 10:52 and 11:40 was never counted and "
        "the new consumers lagged behind.",
        "Halcyon overspent because the pacer lost 48 minutes of spend events when a release renamed its "
        "consumer group. Restarting the spend consumers and replaying spend from the ledger since 10:50 put "
        "the counters right; the group id was pinned in config afterwards.",
        [(rb("pacer-resync-spend-consumer", "since 10:50"), "succeeded", "pacer-resync-spend-consumer")],
        "jun.w", "pacer-resync-spend-consumer"))

inc("PROFN2", "PROFN", "2025-03-21T21:14:00Z", "page", "profile-store", "high",
    "[FIRING:1] AerospikeReadLatencyHigh profile-us-east",
    "Read latency >8ms for 6.3% of reads on as-use-06 (threshold 1%)",
    ["latency-spike"], [],
    page_labels("AerospikeReadLatencyHigh", "warning", "profiles", "profile-us-east", "us-east", "data-platform",
                node="as-use-06"), 4,
    outcome=out(40,
        "as-use-06's NVMe device nvme2 started reporting media errors; reads from it took 25-60 ms. No "
        "migrations were running.",
        "One profile-store node's disk was failing. Quiescing as-use-06 moved its reads to replicas and bid "
        "timeouts returned to baseline; the node was replaced the next day during the quiet hours.",
        [(rb("aerospike-quiesce-slow-node", "on as-use-06"), "succeeded", "aerospike-quiesce-slow-node")],
        "marcus.o", "aerospike-quiesce-slow-node"))

inc("EV3", "EVDISK", "2025-03-25T10:05:00Z", "human", "event-tracker", "medium",
    "Impression counts 7% under Meridian's numbers for last night",
    "Reconciliation job flagged it: Meridian reports 412.6M impressions for 03-24, we logged 383.1M. The whole gap "
    "is between 23:10 and 02:40 UTC. Tracker logs in that window are full of produce timeouts; they buffer 64MB "
    "and drop after that.",
    ["discrepancy", "data-loss"],
    ["tracker: dropped 18231 events: producer buffer exhausted (buffer.memory=67108864)",
     "TimeoutException: Expiring 312 record(s) for imp-events-7: 120013 ms has passed since batch creation"],
    human_labels("jira", "data-platform", "us-east", reporter="analyst-kim"), 95,
    outcome=out(300,
        "kafka-use-04 and -06 filled overnight: imp-events had been set to 14 days of retention for an audit "
        "and nobody set retention.bytes; ISR shrank and acks=all produces timed out.",
        "About 29M impressions were dropped by the trackers overnight because two brokers were full. "
        "Shortening imp-events retention and growing the two log volumes fixed it; the gap was backfilled "
        "from tracker access logs the same day.",
        [(rb("kafka-vm-grow-log-volume", "for imp-events on kafka-use-04/06"), "succeeded", "kafka-vm-grow-log-volume"),
         ("backfill 03-24 impressions from tracker access logs", "succeeded", None)],
        "sven.l", "kafka-vm-grow-log-volume"))

inc("REPORT3", "REPORT", "2025-03-28T15:50:00Z", "human", "advertiser-console", "medium",
    "Console reporting 6h behind again",
    "Lumen Mobile's agency keeps refreshing the hourly report; the last hour shown is 09:00 UTC. They have an "
    "optimization call at 17:00.",
    ["report-delay"], [],
    human_labels("zendesk", "console", "us-east", reporter="support-ola", ticket="ZD-48812"), 80,
    outcome=out(95,
        "A reporting-etl TaskManager was lost to a spot reclaim during a checkpoint; afterwards checkpoints "
        "kept failing on the 10-minute timeout under the backlog.",
        "Reporting fell six hours behind after a spot reclaim. Raising the job parallelism from 48 to 64 needed "
        "a checkpoint too, which timed out. Starting from the last completed checkpoint with the relaxed "
        "timeout worked and reporting was current by 17:40.",
        [("raise reporting-etl parallelism from 48 to 64", "failed", None),
         (rb("reporting-etl-restart-from-checkpoint"), "succeeded", "reporting-etl-restart-from-checkpoint")],
        "amara.d", "reporting-etl-restart-from-checkpoint"))

inc("SURGED2", "SURGED", "2025-04-02T17:25:00Z", "page", "bid-gateway", "high",
    "[FIRING:1] BidGatewayExchangeQPSAnomaly bid-gateway-us-east exchange=brightwell",
    "Inbound QPS from brightwell 3.4x its 7-day baseline",
    ["qps-surge"], [],
    page_labels("BidGatewayExchangeQPSAnomaly", "warning", "rtb", "rtb-us-east", "us-east", "rtb",
                exchange="brightwell"), 5,
    outcome=out(60,
        "Brightwell turned on a new data center (ord2) that sent its full, unfiltered request stream with no "
        "QPS limit on their side; 70% of it was traffic our pretargeting would drop anyway.",
        "Brightwell's new data center sent 3.4x normal traffic and pushed bidder CPU to 89%. Limiting "
        "Brightwell to 120k QPS at the gateway brought CPU back to 65% and timeouts to baseline.",
        [(rb("bidgw-cap-exchange-qps", "brightwell 120k"), "succeeded", "bidgw-cap-exchange-qps")],
        "tobias.k", "bidgw-cap-exchange-qps"))

inc("PROFM2", "PROFM", "2025-04-04T20:40:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderTimeoutRateHigh bidder-us-east",
    "Bid response timeouts 3.1% of requests over 5m (threshold 2%)",
    ["timeout"], [],
    page_labels("BidderTimeoutRateHigh", "warning", "rtb", "bidder-us-east", "us-east", "rtb"), 4,
    outcome=out(55,
        "After an AWS retirement notice as-use-03 was replaced at 19:30; the new node took its partitions back "
        "with four migrate threads during the evening peak and p99 reads went to 18 ms cluster-wide.",
        "Timeouts rose because partition migrations to a replacement profile-store node ran at full speed "
        "during peak. Slowing migrations to one thread and one incoming migration per node brought p99 reads "
        "to 3 ms; migrations finished at 04:10.",
        [(rb("aerospike-throttle-migrations", "threads 1"), "succeeded", "aerospike-throttle-migrations")],
        "elena.r", "aerospike-throttle-migrations"))

inc("SURGEO2", "SURGEO", "2025-04-08T01:10:00Z", "human", "bidder", "high",
    "Timeouts during the championship game, everything hot",
    "Bidder fleet at 240 pods (HPA max) and CPU 93%. Every exchange is up roughly 40% over a normal Monday night; "
    "no single exchange stands out and there are no duplicate request IDs in the sample log. Timeout rate 4.2%.",
    ["cpu-saturation", "timeout", "qps-surge"], [],
    human_labels("slack", "rtb", "us-east", reporter="marcus.o"), 25,
    outcome=out(45,
        "Organic surge on every exchange during the college basketball final; the HPA ceiling of 240 was reached.",
        "All exchanges grew about 40% together during the game. Raising the bidder HPA max to 320 and the node "
        "group with it ended the timeouts in 10 minutes.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 240 -> 320"), "succeeded", "bidder-scale-out-fleet")],
        "marcus.o", "bidder-scale-out-fleet"))

inc("SNAP3", "SNAP", "2025-04-10T19:05:00Z", "page", "bidder", "critical",
    "[FIRING:1] BidderTimeoutRateHigh bidder-us-east",
    "Bid response timeouts 5.6% of requests over 5m (threshold 2%)",
    ["timeout"], [],
    page_labels("BidderTimeoutRateHigh", "critical", "rtb", "bidder-us-east", "us-east", "rtb"), 4,
    outcome=out(90,
        "A 640k-domain inclusion list attached to a Corvid deal inflated the campaign index snapshot to 1.1 GB; "
        "GC pauses on every bidder.",
        "Timeouts looked like the profile-store trouble of March, and as-use-05 was quiesced first; profile "
        "latency was normal and nothing changed. Bidder GC graphs then showed the real cause: a 1.1 GB index "
        "snapshot from a deal's domain list. Pinning the previous snapshot and holding the deal's line items "
        "fixed it.",
        [(rb("aerospike-quiesce-slow-node", "on as-use-05"), "failed", "aerospike-quiesce-slow-node"),
         ("asinfo quiesce-undo on as-use-05", "succeeded", None),
         (rb("campaign-pin-last-good-snapshot", "to v98870"), "succeeded", "campaign-pin-last-good-snapshot")],
        "jun.w", "campaign-pin-last-good-snapshot"))

inc("UNDER3", "UNDER", "2025-04-17T06:50:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderNoBidRateHigh bidder-eu-west reason=pacing",
    "No-bid rate with reason pacing_budget at 64% over 15m (baseline 11%)",
    ["no-bid"], [],
    page_labels("BidderNoBidRateHigh", "warning", "rtb", "bidder-eu-west", "eu-west", "rtb", reason="pacing"), 6,
    outcome=out(95,
        "An S3 lifecycle rule added for cost cleanup deleted yesterday's pacing checkpoints while the pacer's "
        "'latest' pointer still referenced one of them; eu-west pacer pods restarted, found nothing and began "
        "from an empty state. Today's hourly checkpoints were intact.",
        "eu-west campaigns stopped bidding because the pacer started empty. The spend consumer was suspected "
        "first and restarted with a replay, with no effect since spend counting was healthy. Loading today's "
        "05:00 checkpoint fixed pacing; the lifecycle rule now skips the latest pointer.",
        [(rb("pacer-resync-spend-consumer"), "failed", "pacer-resync-spend-consumer"),
         (rb("pacer-restore-pacing-checkpoint", "with checkpoint 05:00 eu-west"), "succeeded",
          "pacer-restore-pacing-checkpoint")],
        "sven.l", "pacer-restore-pacing-checkpoint"))

inc("OVER4", "OVER", "2025-04-22T12:35:00Z", "page", "budget-pacer", "high",
    "[FIRING:2] PacerSpendEventLagHigh budget-pacer",
    "Consumer group lag above 200k events for 20m on 2 groups",
    ["consumer-lag"], [],
    page_labels("PacerSpendEventLagHigh", "warning", "pacing", "pacing-multi", "multi", "pacing"), 5,
    outcome=out(140,
        "A partition reassignment on event-bus moved spend-events leaders; pacer consumers in both regions "
        "(pacer-spend and pacer-spend-eu) hung on a metadata refresh bug of their client version; 22 line items "
        "overspent.",
        "Both regional spend consumer groups stalled after a partition reassignment. The runbook of the time "
        "only restarted and replayed the us-east group and did not stop line items that were already over "
        "budget, so eu-west kept overspending for another 40 minutes. The same steps were done by hand for "
        "pacer-spend-eu and the 22 over-budget line items were held. The runbook was revised afterwards to "
        "cover every regional group and hold over-budget line items first.",
        [(rb("pacer-resync-spend-consumer", "(us-east group only)"), "partial", "pacer-resync-spend-consumer"),
         ("by hand: restart pacer-spend-eu consumers, replay eu spend from the ledger, hold 22 over-budget "
          "line items", "succeeded", None)],
        "priya.n", "pacer-resync-spend-consumer"))

inc("SEG3", "SEG", "2025-04-25T09:10:00Z", "human", "campaign-service", "medium",
    "Oakridge Bank audience line items not delivering since ~midnight",
    "Oakridge's 'lookalike - high income' and 'site visitors 30d' line items: 0 impressions since 00:00 UTC. "
    "Their other line items are fine. Did something change with audiences?",
    ["underdelivery"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-rachel"), 55,
    outcome=out(200,
        "The data partner rotated the credentials of their bucket; segment-loader read zero input files, "
        "'succeeded' with zero rows (no alert on empty input) and the segments expired at midnight.",
        "Audience line items stopped because segments expired after a load that silently read nothing. Pacing "
        "was suspected first and the last pacing checkpoint was loaded, with no effect. With the partner's new "
        "credentials in place, extending TTLs and loading again from the 04-24 partition brought match rate "
        "back. An empty-input check was added to the job.",
        [(rb("pacer-restore-pacing-checkpoint"), "failed", "pacer-restore-pacing-checkpoint"),
         ("update the partner bucket credentials in segment-loader", "succeeded", None),
         (rb("segments-rerun-bulk-load", "from partition 2025-04-24"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("EV4", "EVDISK", "2025-04-29T02:45:00Z", "page", "event-bus", "high",
    "[FIRING:4] KafkaUnderReplicatedPartitions event-bus-use",
    "412 under-replicated partitions across 2 brokers",
    ["replication-lag"], [],
    page_labels("KafkaUnderReplicatedPartitions", "critical", "data", "event-bus-use", "us-east", "data-platform"), 4,
    outcome=out(120,
        "A Terraform apply set bid-logs-v2 back to 7 days of retention without a byte limit (the February "
        "change was never in code); kafka-use-02 and -05 reached 100% disk and their followers fell out of ISR.",
        "Two brokers filled again from bid-logs-v2 retention after Terraform undid the February setting. "
        "Shortening retention and growing both log volumes recovered ISR in 50 minutes; the retention is now "
        "in Terraform.",
        [(rb("kafka-vm-grow-log-volume", "for bid-logs-v2 on kafka-use-02/05"), "succeeded", "kafka-vm-grow-log-volume")],
        "sven.l", "kafka-vm-grow-log-volume"))

inc("REPORT4", "REPORT", "2025-05-02T07:30:00Z", "human", "reporting-etl", "high",
    "reporting-etl restarting every ~12 minutes since 04:00",
    "Job reporting-etl-enrich: checkpoint 88412 expired before completing, job restarts from 88405; backlog on "
    "imp-events is 40M and rising. Checkpoint size is 310 GB (was ~180 GB last week). Dedup state for the new "
    "viewability events maybe?",
    ["checkpoint-failure", "consumer-lag", "report-delay"],
    ["Checkpoint 88412 of job 6f1c2a9e expired before completing.",
     "org.apache.flink.util.FlinkRuntimeException: Exceeded checkpoint tolerable failure threshold."],
    human_labels("slack", "data-platform", "us-east", reporter="jun.w"), 30,
    deployment=dep("reporting-etl-2025.05.01", "2025.05.01", 610),
    outcome=out(130,
        "The May 1 release added viewability events to the dedup operator without a state TTL; state grew "
        "70% and checkpoints passed the 10-minute timeout.",
        "reporting-etl looped on failed checkpoints after its state grew by 70%. The job was started from the "
        "last completed checkpoint with the relaxed checkpoint settings and a 24 h state TTL on the new "
        "events; reporting caught up by 10:30.",
        [(rb("reporting-etl-restart-from-checkpoint", "with a state TTL on viewability events"), "succeeded",
          "reporting-etl-restart-from-checkpoint")],
        "jun.w", "reporting-etl-restart-from-checkpoint"))

inc("IVT1", "IVT", "2025-05-06T10:20:00Z", "human", "advertiser-console", "high",
    "Clicks on mobile campaigns down ~90% since last night (Lumen Mobile, PixelNest)",
    "Lumen Mobile's UA team says clicks in the console dropped from ~40k/day to 3.8k starting around 22:00 UTC "
    "yesterday, but their MMP shows installs as normal and the exchange says clicks are normal. Impressions look "
    "normal in the console. Only mobile app inventory in Europe so far.",
    ["discrepancy"], [],
    human_labels("slack", "ad-ops", "eu-west", reporter="am-luis"), 90,
    outcome=out(8770,
        "The nightly invalid-traffic (IVT) list update at 21:45 UTC included a /12 CGNAT range of a large "
        "European mobile carrier as 'datacenter'; event-tracker marked those clicks invalid and sent them to "
        "the ivt topic, so the console never counted them.",
        "Mobile clicks in Europe disappeared from reporting because a bad IVT list labelled a carrier's CGNAT "
        "range as datacenter traffic. Reporting was first suspected and reporting-etl was started again from "
        "its checkpoint, which changed nothing (the job was current). By hand we went back to the 05-04 IVT "
        "list, replayed the ivt topic for 05-05 22:00 to 05-06 12:00 through the click path, and added a guard "
        "that rejects list updates that change more than 0.5% of entries. Confirmed with the advertisers on "
        "05-12.",
        [(rb("reporting-etl-restart-from-checkpoint"), "failed", "reporting-etl-restart-from-checkpoint"),
         ("by hand: load the 05-04 IVT list in event-tracker and replay the ivt topic through the click path",
          "succeeded", None)],
        "amara.d", None))

inc("PROFN3", "PROFN", "2025-05-09T22:00:00Z", "human", "profile-store", "high",
    "one profile node dragging, as-use-02",
    "Bidder timeouts 2.7%. Looked at profile-us-east per-node histograms: as-use-02 reads p99 35 ms, the other "
    "seven under 2 ms. No migrations (migrate_partitions_remaining 0 everywhere). defrag_q on as-use-02 is 4.1M "
    "and climbing since the segment load at 20:00.",
    ["timeout", "latency-spike"],
    ["profile lookup exceeded budget: 10ms (aerospike: TIMEOUT)"],
    human_labels("slack", "rtb", "us-east", reporter="tobias.k"), 20,
    outcome=out(60,
        "Defrag on as-use-02 fell behind after the nightly segment load concentrated writes on it; its device "
        "reads slowed. No migrations were running.",
        "One profile-store node slowed down under a defrag backlog. Quiescing as-use-02 sent reads to replicas "
        "and timeouts fell to 0.8%; defrag-sleep was lowered on that node and it was put back at 02:00.",
        [(rb("aerospike-quiesce-slow-node", "on as-use-02"), "succeeded", "aerospike-quiesce-slow-node")],
        "tobias.k", "aerospike-quiesce-slow-node"))

inc("SNAP4", "SNAP", "2025-05-13T14:15:00Z", "page", "campaign-service", "high",
    "[FIRING:1] CampaignIndexSnapshotSizeHigh campaign-service",
    "Published snapshot v104877 is 1.3 GB (threshold 600 MB)",
    [], [],
    page_labels("CampaignIndexSnapshotSizeHigh", "warning", "campaigns", "core-us-east", "us-east", "campaigns"), 3,
    outcome=out(40,
        "Quarry Outdoor's agency API client posted the same 300k-keyword contextual list to 212 line items.",
        "The campaign index snapshot grew to 1.3 GB from a contextual keyword list duplicated over 212 line "
        "items; bidders were at 88% heap. Pinning v104861 and holding those line items prevented the OOMs; the "
        "agency moved the list to a shared keyword set.",
        [(rb("campaign-pin-last-good-snapshot", "to v104861"), "succeeded", "campaign-pin-last-good-snapshot")],
        "elena.r", "campaign-pin-last-good-snapshot"))

inc("SURGED3", "SURGED", "2025-05-16T16:40:00Z", "human", "bid-gateway", "high",
    "Meridian QPS spike and bidder hot, same as the Pylon thing?",
    "Meridian went from 90k to 260k QPS at 16:12. bidder-us-east CPU 88%, timeouts 3.9% across all exchanges. "
    "The gateway sample shows lots of Meridian requests with identical imp ids and different request ids; looks "
    "like they're fanning out the same impression.",
    ["qps-surge", "timeout"], [],
    human_labels("slack", "rtb", "us-east", reporter="amara.d"), 30,
    outcome=out(65,
        "Meridian split each multi-impression request into per-impression requests and sent each one three "
        "times to different endpoints (a routing table bug on their side).",
        "Meridian's routing bug tripled its traffic and saturated the fleet. Limiting Meridian to 100k QPS and "
        "dropping its duplicates at the gateway fixed timeouts in 8 minutes.",
        [(rb("bidgw-cap-exchange-qps", "meridian 100k"), "succeeded", "bidgw-cap-exchange-qps")],
        "amara.d", "bidgw-cap-exchange-qps"))

inc("OVER5", "OVER", "2025-05-20T11:25:00Z", "human", "budget-pacer", "high",
    "Brisa Cosmetics over budget ~25% yesterday and today",
    "AM (rachel): Brisa's May campaign spent $15.6k yesterday vs $12.5k daily, today already $11k at 11:00 UTC. "
    "They noticed before we did. Can we stop the bleeding and get numbers for a make-good?",
    ["overspend"], [],
    human_labels("slack", "pacing", "us-east", reporter="am-rachel"), 40,
    outcome=out(150,
        "One pacer-spend consumer pod had been stuck since 14:00 the day before on a partition whose leader "
        "moved; it owned 3 of 24 partitions, and spend of campaigns hashed to them was not counted.",
        "Brisa and a few other campaigns overspent because one spend consumer was stuck for 21 hours while the "
        "group looked healthy. The revised runbook held the over-budget line items, restarted the consumers "
        "and replayed spend since the day before; counters were right by 12:40.",
        [(rb("pacer-resync-spend-consumer", "rev 2, since 2025-05-19 13:45"), "succeeded", "pacer-resync-spend-consumer")],
        "priya.n", "pacer-resync-spend-consumer"))

inc("PROFM3", "PROFM", "2025-05-23T18:55:00Z", "page", "profile-store", "high",
    "[FIRING:1] AerospikeReadLatencyHigh profile-us-east",
    "Read latency >8ms for 4.9% of reads on 8/8 nodes (threshold 1%)",
    ["latency-spike"], [],
    page_labels("AerospikeReadLatencyHigh", "warning", "profiles", "profile-us-east", "us-east", "data-platform"), 4,
    outcome=out(60,
        "A rack-aware configuration change applied at 18:20 (rack-id per availability zone) started a "
        "redistribution of replicas; migrations ran at default speed during the evening ramp.",
        "Reads slowed on every profile-store node because a rack-aware config change started migrations at "
        "peak. Slowing migrations to one thread fixed latency; they finished at 05:00.",
        [(rb("aerospike-throttle-migrations", "threads 1"), "succeeded", "aerospike-throttle-migrations")],
        "marcus.o", "aerospike-throttle-migrations"))

inc("UNDER4", "UNDER", "2025-05-27T08:05:00Z", "human", "advertiser-console", "critical",
    "Multiple advertisers report zero delivery this morning",
    "Three AMs in #ad-ops within 10 minutes: Fennel & Vine, Tidal Energy and Northwind all show no impressions "
    "since ~06:30 UTC. Budgets fine, nothing edited. Bid rate in the bidder dashboard dropped from 38% to 4%.",
    ["underdelivery", "no-bid", "bid-rate-drop"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-rachel"), 45,
    deployment=dep("budget-pacer-3.4.0", "3.4.0", 95),
    outcome=out(100,
        "budget-pacer 3.4.0 changed the checkpoint format; on startup the new pods could not parse the 3.3 "
        "checkpoint and began from an empty pacing state instead of failing, then wrote empty checkpoints.",
        "Delivery stopped for most campaigns after budget-pacer 3.4.0 started on empty state. Going back to "
        "3.3.2 did not help: the old pods loaded the empty checkpoint that 3.4.0 had just written. Loading the "
        "06:00 checkpoint (the last one written by 3.3.2) on 3.3.2 fixed pacing; 3.4.1 fails closed on an "
        "unreadable checkpoint.",
        [(rb("argo-rollback-service", "for budget-pacer 3.4.0 -> 3.3.2"), "failed", "argo-rollback-service"),
         (rb("pacer-restore-pacing-checkpoint", "with checkpoint 06:00"), "succeeded", "pacer-restore-pacing-checkpoint")],
        "jun.w", "pacer-restore-pacing-checkpoint"))

inc("SEG4", "SEG", "2025-05-30T05:40:00Z", "page", "bidder", "medium",
    "[FIRING:1] AudienceMatchRateLow bidder-us-east",
    "Share of bid requests matching at least one audience segment 3.2% (7-day baseline 41%)",
    [], [],
    page_labels("AudienceMatchRateLow", "warning", "rtb", "bidder-us-east", "us-east", "rtb"), 8,
    outcome=out(125,
        "The daily load ran but wrote to set segments_v2 after a loader config change, while bidders read set "
        "segments; the old segments expired at 05:00.",
        "Audience matching collapsed because the segment load wrote to the wrong set. After the set name was "
        "fixed, TTLs were extended and the load was run again from the 05-29 partition; match rate was back at "
        "40% by 07:50.",
        [("fix the target set name in the segment-loader config", "succeeded", None),
         (rb("segments-rerun-bulk-load", "from partition 2025-05-29"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("REPORT5", "REPORT", "2025-06-03T13:30:00Z", "human", "advertiser-console", "medium",
    "Reporting delayed, 'data as of 07:10'",
    "Several agency users see 'data as of 07:10 UTC' on the Performance page. Tidal Energy's trader wants today's "
    "numbers for a budget shift.",
    ["report-delay"], [],
    human_labels("zendesk", "console", "us-east", reporter="support-ola", ticket="ZD-51390"), 65,
    outcome=out(120,
        "The warehouse sink's batch commits slowed and backpressure made aligned checkpoint barriers take more "
        "than 10 minutes; the job looped on failed checkpoints.",
        "Reporting stopped at 07:10 because reporting-etl checkpoints timed out under backpressure from the "
        "warehouse sink. Starting from the last completed checkpoint with unaligned checkpoints let "
        "checkpoints complete despite the backpressure; reporting was current by 15:45.",
        [(rb("reporting-etl-restart-from-checkpoint"), "succeeded", "reporting-etl-restart-from-checkpoint")],
        "sven.l", "reporting-etl-restart-from-checkpoint"))

inc("SURGEO3", "SURGEO", "2025-06-06T01:30:00Z", "page", "bidder", "critical",
    "[FIRING:1] BidderCPUSaturation bidder-us-east",
    "Average bidder CPU 94% over 10m with HPA at maxReplicas (320)",
    ["cpu-saturation"], [],
    page_labels("BidderCPUSaturation", "critical", "rtb", "bidder-us-east", "us-east", "rtb"), 5,
    outcome=out(65,
        "Organic surge: the first game of the basketball finals plus a national retail sale launch; every "
        "exchange was up about 35%.",
        "The on-call limited the largest exchange (Pylon) at the gateway first, as in the April Brightwell "
        "case; timeouts stayed high on the other four exchanges and Pylon revenue dropped, so the limit was "
        "cleared. Raising the bidder HPA max to 400 fixed it: the surge was spread over every exchange.",
        [(rb("bidgw-cap-exchange-qps", "pylon 180k"), "failed", "bidgw-cap-exchange-qps"),
         ("clear the Pylon limit", "succeeded", None),
         (rb("bidder-scale-out-fleet", "maxReplicas 320 -> 400"), "succeeded", "bidder-scale-out-fleet")],
        "tobias.k", "bidder-scale-out-fleet"))

inc("PROFN4", "PROFN", "2025-06-17T19:20:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderTimeoutRateHigh bidder-eu-west",
    "Bid response timeouts 2.9% of requests over 5m (threshold 2%)",
    ["timeout"], [],
    page_labels("BidderTimeoutRateHigh", "warning", "rtb", "bidder-eu-west", "eu-west", "rtb"), 4,
    outcome=out(55,
        "as-euw-03 had slow device reads after a kernel NVMe driver regression; it was the only node on the "
        "new AMI. No migrations were running.",
        "eu-west timeouts came from one profile-store node on a new AMI whose NVMe driver slowed reads. "
        "Quiescing as-euw-03 cleared them; the node went back to the previous AMI the next day.",
        [(rb("aerospike-quiesce-slow-node", "on as-euw-03"), "succeeded", "aerospike-quiesce-slow-node")],
        "elena.r", "aerospike-quiesce-slow-node"))

inc("SNAP5", "SNAP", "2025-06-20T09:50:00Z", "human", "bidder", "high",
    "bidders slow to become ready + p99 up after 09:30",
    "Rolling restart from the node pool upgrade: new bidder pods take 3+ minutes to pass readiness (normally "
    "40s), the running ones show p99 95ms and GC CPU ~30%. Heap graphs jumped at 09:31 on all pods at once. "
    "Nothing deployed to bidder today.",
    ["gc-pause", "latency-spike"], [],
    human_labels("slack", "rtb", "us-east", reporter="marcus.o"), 20,
    outcome=out(110,
        "Halcyon Travel's summer campaign imported 1.6M hotel geo points as lat/long targeting; the index "
        "snapshot grew to 1.2 GB.",
        "Bidder heap and GC jumped together at 09:31 when a 1.2 GB index snapshot arrived. Restarting the slow "
        "pods only made them load the same snapshot. Pinning v118240 and holding the Halcyon line items fixed "
        "readiness and latency.",
        [("restart the slowest bidder pods", "failed", None),
         (rb("campaign-pin-last-good-snapshot", "to v118240"), "succeeded", "campaign-pin-last-good-snapshot")],
        "marcus.o", "campaign-pin-last-good-snapshot"))

inc("OVER6", "OVER", "2025-06-24T03:15:00Z", "page", "budget-pacer", "high",
    "[FIRING:1] PacerSpendEventLagHigh budget-pacer",
    "Consumer group pacer-spend lag 900k events (threshold 200k) for 20m",
    ["consumer-lag"], [],
    page_labels("PacerSpendEventLagHigh", "warning", "pacing", "pacing-us-east", "us-east", "pacing",
                group="pacer-spend"), 5,
    outcome=out(60,
        "First week on MSK: an IAM auth token refresh bug in the pacer's Kafka client left consumers unable "
        "to rejoin the group after the broker maintenance at 02:50.",
        "Spend counting stopped after MSK broker maintenance because the pacer consumers could not "
        "re-authenticate. Holding over-budget line items, restarting the consumers and replaying spend since "
        "02:45 put things right; the client library was upgraded the same week.",
        [(rb("pacer-resync-spend-consumer", "since 02:45"), "succeeded", "pacer-resync-spend-consumer")],
        "jun.w", "pacer-resync-spend-consumer"))

inc("EV5", "EVDISK", "2025-06-27T04:40:00Z", "page", "event-bus", "high",
    "[FIRING:1] KafkaDataLogsDiskUsedHigh event-bus-msk b-2",
    "KafkaDataLogsDiskUsed 91% on broker b-2 (threshold 85%)",
    ["disk-full"], [],
    page_labels("KafkaDataLogsDiskUsedHigh", "warning", "data", "event-bus-msk", "us-east", "data-platform",
                broker="b-2"), 5,
    outcome=out(95,
        "The new MSK cluster was sized at 4 TB per broker assuming shorter retention; bid-logs-v2 carried over "
        "its 7-day retention in the migration copy.",
        "The first disk fill on MSK. The old procedure was tried first and failed at once: there is no broker "
        "host to ssh into and the EC2 volume ids no longer exist. Shortening bid-logs-v2 retention and adding "
        "storage through the MSK API brought b-2 to 61%.",
        [(rb("kafka-vm-grow-log-volume"), "failed", "kafka-vm-grow-log-volume"),
         (rb("msk-grow-broker-storage", "4 TB -> 6 TB"), "succeeded", "msk-grow-broker-storage")],
        "sven.l", "msk-grow-broker-storage"))

inc("PROFM4", "PROFM", "2025-07-02T20:30:00Z", "human", "profile-store", "high",
    "profile-store slow on all nodes, bid timeouts 4%",
    "p99 reads 19 ms on all 10 nodes in profile-us-east. As part of the pre-Prime-Day capacity work infra "
    "added as-use-09 and as-use-10 at 19:45. asadm shows migrate_partitions_remaining at 3,800 and dropping "
    "slowly.",
    ["timeout", "latency-spike"], [],
    human_labels("slack", "rtb", "us-east", reporter="priya.n"), 30,
    outcome=out(60,
        "Migrations to two new nodes at four migrate threads during the US evening peak.",
        "Reads slowed cluster-wide while partitions moved to two new nodes. Slowing migrations fixed latency; "
        "the contradiction about quiescing versus slowing migrations was settled after this incident.",
        [(rb("aerospike-throttle-migrations", "threads 1"), "succeeded", "aerospike-throttle-migrations")],
        "priya.n", "aerospike-throttle-migrations"))

inc("SURGEO4", "SURGEO", "2025-07-08T13:20:00Z", "human", "bidder", "critical",
    "Prime Day traffic, bidders maxed out",
    "Every exchange up 50-70% since 07:00 ET. bidder-us-east at HPA max 400, CPU 95%, timeouts 5.1%. Per-exchange "
    "QPS is in line with each exchange's own growth; no duplicate ids.",
    ["qps-surge", "cpu-saturation", "timeout"], [],
    human_labels("slack", "rtb", "us-east", reporter="marcus.o"), 25,
    outcome=out(55,
        "Organic Prime Day surge across every exchange; the HPA ceiling of 400 was reached.",
        "Prime Day traffic filled the bidder fleet. Raising the HPA max to 520 brought CPU to 72% and timeouts "
        "under 1%.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 400 -> 520"), "succeeded", "bidder-scale-out-fleet")],
        "marcus.o", "bidder-scale-out-fleet"))

inc("SURGED4", "SURGED", "2025-07-15T15:10:00Z", "page", "bid-gateway", "high",
    "[FIRING:1] BidGatewayExchangeQPSAnomaly bid-gateway-us-east exchange=tessera",
    "Inbound QPS from tessera 2.8x its 7-day baseline",
    ["qps-surge"], [],
    page_labels("BidGatewayExchangeQPSAnomaly", "warning", "rtb", "rtb-us-east", "us-east", "rtb",
                exchange="tessera"), 5,
    outcome=out(60,
        "A load balancer failover at Tessera's Virginia point of presence sent every request twice.",
        "Tessera doubled its traffic through a failover bug. Limiting Tessera at the gateway and dropping its "
        "duplicate requests fixed bidder CPU within minutes.",
        [(rb("bidgw-cap-exchange-qps", "tessera 110k"), "succeeded", "bidgw-cap-exchange-qps")],
        "amara.d", "bidgw-cap-exchange-qps"))

inc("UNDER5", "UNDER", "2025-07-18T07:15:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderNoBidRateHigh bidder-us-east reason=pacing",
    "No-bid rate with reason pacing_budget at 58% over 15m (baseline 9%)",
    ["no-bid"], [],
    page_labels("BidderNoBidRateHigh", "warning", "rtb", "bidder-us-east", "us-east", "rtb", reason="pacing"), 6,
    outcome=out(60,
        "The checkpoint writer was OOMKilled at 05:55 during the day rollover and left a zero-length 06:00 "
        "checkpoint; pacers restarted by the 06:30 node rotation loaded it.",
        "Pacing went to zero after a node rotation because the newest checkpoint was empty. Loading the 05:00 "
        "checkpoint fixed it; the writer got more memory.",
        [(rb("pacer-restore-pacing-checkpoint", "with checkpoint 05:00"), "succeeded", "pacer-restore-pacing-checkpoint")],
        "sven.l", "pacer-restore-pacing-checkpoint"))

inc("REPORT6", "REPORT", "2025-07-22T06:00:00Z", "page", "reporting-etl", "high",
    "[FIRING:1] ReportingFreshnessLagHigh reporting-etl",
    "Newest hour in warehouse table delivery_hourly is 5h old (threshold 2h)",
    ["report-delay"], [],
    page_labels("ReportingFreshnessLagHigh", "warning", "data", "data-us-east", "us-east", "data-platform"), 6,
    outcome=out(90,
        "Checkpoints had failed since 01:10: a TaskManager node had a degraded EBS volume and its RocksDB "
        "snapshot uploads stalled.",
        "Reporting fell five hours behind. Starting the job again from the last completed checkpoint on "
        "healthy nodes with the relaxed checkpoint settings caught up by 08:20.",
        [(rb("reporting-etl-restart-from-checkpoint"), "succeeded", "reporting-etl-restart-from-checkpoint")],
        "tobias.k", "reporting-etl-restart-from-checkpoint"))

inc("SEG5", "SEG", "2025-07-25T10:40:00Z", "human", "advertiser-console", "medium",
    "retargeting delivery dead again?",
    "Tidal Energy retargeting (site visitors 7d and 30d) at zero since last night. Pretty sure this happened to "
    "Brisa in the winter.",
    ["underdelivery"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-luis"), 75,
    outcome=out(185,
        "The partner's daily drop arrived 9 hours late after an outage on their side; the loader ran on schedule "
        "with no input and the segments expired.",
        "Retargeting stopped because segments expired after a late partner file. Once the file arrived, TTLs "
        "were extended and the load run again; match rate recovered by 13:50.",
        [(rb("segments-rerun-bulk-load", "from partition 2025-07-24"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("EV6", "EVDISK", "2025-07-29T12:20:00Z", "human", "event-tracker", "medium",
    "Click tracker drops between 09:40 and 10:55 UTC",
    "The hourly recon shows 6.1% fewer clicks than the exchange-reported clicks for 09:00-11:00. Tracker pods "
    "logged produce timeouts; the MSK console shows broker b-1 at 97% disk at 10:30.",
    ["discrepancy", "data-loss"],
    ["TimeoutException: Expiring 88 record(s) for click-events-3: 120005 ms has passed since batch creation",
     "tracker: dropped 4402 events: producer buffer exhausted"],
    human_labels("jira", "data-platform", "us-east", reporter="analyst-kim"), 95,
    outcome=out(170,
        "A reprocessing of June impressions for an audit was written to a new topic with 30 days of retention; "
        "storage filled on brokers b-1 and b-3.",
        "Trackers dropped clicks for 75 minutes because two MSK brokers were full. Shortening the audit topic's "
        "retention and adding broker storage through the MSK API fixed it.",
        [(rb("msk-grow-broker-storage", "6 TB -> 8 TB"), "succeeded", "msk-grow-broker-storage")],
        "sven.l", "msk-grow-broker-storage"))

inc("SNAP6", "SNAP", "2025-08-04T19:55:00Z", "page", "bidder", "critical",
    "[FIRING:12] KubePodOOMKilled rtb/bidder",
    "Container bidder in 12 pods OOMKilled in the last 10m",
    ["oom-kill"], [],
    page_labels("KubePodOOMKilled", "critical", "rtb", "bidder-us-east", "us-east", "rtb", container="bidder"), 4,
    outcome=out(95,
        "A back-to-school campaign for PixelNest added 900k app bundle ids as a blocklist; the size check added "
        "in January only covered allowlists. The index snapshot grew to 1.7 GB.",
        "Bidders were OOMKilled after a 1.7 GB campaign index snapshot. Pinning v131071 and holding the PixelNest "
        "line items stopped the OOMs; the size check now covers blocklists.",
        [(rb("campaign-pin-last-good-snapshot", "to v131071"), "succeeded", "campaign-pin-last-good-snapshot")],
        "elena.r", "campaign-pin-last-good-snapshot"))

inc("SNAP6R", "SNAP", "2025-08-04T20:03:00Z", "page", "campaign-service", "high",
    "[FIRING:1] CampaignIndexSnapshotSizeHigh campaign-service",
    "Published snapshot v131090 is 1.7 GB (threshold 600 MB)",
    [], [],
    page_labels("CampaignIndexSnapshotSizeHigh", "warning", "campaigns", "core-us-east", "us-east", "campaigns"), 3,
    repage_of="SNAP6",
    outcome=out(90,
        "Same as {{SNAP6}}: a 900k-entry app bundle blocklist inflated the campaign index snapshot.",
        "Re-page of {{SNAP6}}. Handled there: bidders pinned to v131071 and the PixelNest line items held.",
        [("none; handled under {{SNAP6}} (" + rb("campaign-pin-last-good-snapshot") + ")", "succeeded", None)],
        "elena.r", "campaign-pin-last-good-snapshot"))

inc("OVER7", "OVER", "2025-08-08T15:35:00Z", "human", "advertiser-console", "high",
    "Northwind overspend on Corvid, 170%",
    "Northwind Motors' August line items on Corvid are at 170% of daily budget; the other exchanges are OK. "
    "Started after lunch ET. Can someone stop the bleeding first and then look?",
    ["overspend"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-luis"), 50,
    outcome=out(125,
        "Spend events of Corvid wins land on partitions 18-23 (keyed by exchange); the consumer owning them was "
        "stuck on a stale partition leader after an MSK patching window.",
        "Northwind overspent on one exchange because the consumer that counts that exchange's spend was stuck "
        "after MSK patching. The runbook held the over-budget line items, restarted the consumers and "
        "replayed spend since 16:30 UTC the day before; credits were issued.",
        [(rb("pacer-resync-spend-consumer", "since 2025-08-07 16:30"), "succeeded", "pacer-resync-spend-consumer")],
        "priya.n", "pacer-resync-spend-consumer"))

inc("PROFN5", "PROFN", "2025-08-12T21:30:00Z", "page", "profile-store", "high",
    "[FIRING:1] AerospikeReadLatencyHigh profile-us-east",
    "Read latency >8ms for 5.2% of reads on as-use-08 (threshold 1%)",
    ["latency-spike"], [],
    page_labels("AerospikeReadLatencyHigh", "warning", "profiles", "profile-us-east", "us-east", "data-platform",
                node="as-use-08"), 4,
    outcome=out(45,
        "A firmware bug on as-use-08's NVMe drives caused long reads under sustained writes; other nodes were "
        "fine and no migrations were running.",
        "One node's drive firmware slowed its reads. Quiescing as-use-08 cleared bid timeouts; the firmware "
        "was updated on all nodes over the following week.",
        [(rb("aerospike-quiesce-slow-node", "on as-use-08"), "succeeded", "aerospike-quiesce-slow-node")],
        "tobias.k", "aerospike-quiesce-slow-node"))

inc("CDNCT1", "CDNCT", "2025-08-15T11:05:00Z", "human", "campaign-service", "medium",
    "New HTML5 creatives for Northwind not serving on Pylon and Meridian",
    "Northwind Motors launched 6 new HTML5 banners yesterday at 16:00. Their line items show 0 impressions for "
    "those creatives while the older creatives on the same line items deliver. Exchange audit status is "
    "'approved' on Pylon, but Meridian's creative scanner shows 'asset load failure'. Pacing and budgets OK.",
    ["underdelivery"],
    ["meridian creative audit: asset load failure (index.html)"],
    human_labels("slack", "ad-ops", "us-east", reporter="am-rachel"), 85,
    outcome=out(7340,
        "A CDN response-headers policy change on Aug 14 served .html files under /h5/ as application/octet-stream; "
        "exchange scanners and browsers downloaded the HTML5 creatives instead of rendering them.",
        "New HTML5 creatives never rendered because the creative CDN sent the wrong Content-Type after a "
        "response-headers policy change. Submitting the creatives again for exchange audit failed with the same "
        "scanner error. Fixing the policy, invalidating /h5/* and submitting again worked; confirmed with Meridian "
        "on 08-20.",
        [("submit the 6 creatives again for exchange audit", "failed", None),
         ("by hand: fix the CDN response-headers policy for /h5/*.html, invalidate /h5/*, submit again",
          "succeeded", None)],
        "amara.d", None))

inc("FX1", "FX", "2025-08-19T04:30:00Z", "human", "bidder", "critical",
    "Japan line items blew through daily budgets in 40 minutes",
    "Tokyo AM pinged: 9 line items for Brisa JP and PixelNest JP on Tessera Japan hit 100% of their daily budget "
    "by 13:10 JST (they usually pace to midnight). Console shows average CPM $1,140 on those line items vs about "
    "$7.50 normally. Other regions look normal.",
    ["overspend"], [],
    human_labels("slack", "rtb", "ap-northeast", reporter="am-kenji"), 40,
    deployment=dep("bidder-8.2.0", "8.2.0", 58),
    outcome=out(65,
        "bidder 8.2.0 moved currency handling to a new library; for seats whose bid currency is JPY the price "
        "was converted twice (USD to JPY applied to a price already in JPY), so bids were about 150x too high.",
        "Japanese line items spent their daily budgets in 40 minutes at 150x prices after bidder 8.2.0. The "
        "pacer was suspected and its spend consumers restarted with a replay; spend counting was already "
        "correct and nothing changed. Rolling bidder back to 8.1.3 fixed prices at once; credits were issued and "
        "8.2.1 has a currency test per exchange.",
        [(rb("pacer-resync-spend-consumer"), "failed", "pacer-resync-spend-consumer"),
         (rb("argo-rollback-service", "for bidder 8.2.0 -> 8.1.3 in ap-northeast"), "succeeded", "argo-rollback-service")],
        "jun.w", "argo-rollback-service"))

inc("PROFM5", "PROFM", "2025-08-22T18:25:00Z", "page", "bidder", "high",
    "[FIRING:1] BidderTimeoutRateHigh bidder-us-east",
    "Bid response timeouts 3.8% of requests over 5m (threshold 2%)",
    ["timeout"], [],
    page_labels("BidderTimeoutRateHigh", "warning", "rtb", "bidder-us-east", "us-east", "rtb"), 4,
    outcome=out(60,
        "as-use-04 rejoined after a kernel patch reboot at 17:50 and migrations back to it ran during peak.",
        "A node coming back from a patch reboot started migrations at peak. Slowing them fixed the timeouts.",
        [(rb("aerospike-throttle-migrations", "threads 1"), "succeeded", "aerospike-throttle-migrations")],
        "marcus.o", "aerospike-throttle-migrations"))

inc("EV7", "EVDISK", "2025-08-27T01:50:00Z", "human", "bidder", "high",
    "bidder produce errors to bid-logs, trackers also complaining",
    "Since 01:20 UTC bidder pods log produce timeouts for bid-logs-v2 and the impression trackers report "
    "dropping events. MSK CloudWatch: KafkaDataLogsDiskUsed 96% on b-2 and b-3, 88% on b-1.",
    ["data-loss", "disk-full"],
    ["TimeoutException: Expiring 512 record(s) for bid-logs-v2-41: 120000 ms has passed since batch creation"],
    human_labels("slack", "rtb", "us-east", reporter="sven.l"), 25,
    outcome=out(95,
        "The monthly partition increase on bid-logs-v2 (48 to 96) came with a retention.ms override copied from "
        "the audit topic; MSK storage filled on three brokers.",
        "Producers to bid-logs-v2 and the trackers failed because three MSK brokers were almost full. "
        "Shortening retention and adding storage through the MSK API fixed it.",
        [(rb("msk-grow-broker-storage", "8 TB -> 10 TB"), "succeeded", "msk-grow-broker-storage")],
        "sven.l", "msk-grow-broker-storage"))

inc("SEG6", "SEG", "2025-09-02T05:10:00Z", "page", "segment-loader", "medium",
    "[FIRING:1] SegmentLoadJobFailed segment-loader",
    "Job segment-load-daily-20250902 failed after 3 attempts",
    ["job-failure"],
    ["warehouse export: Query exceeded resource limits: 4h timeout"],
    page_labels("SegmentLoadJobFailed", "warning", "data", "data-us-east", "us-east", "data-platform",
                job="segment-load-daily"), 5,
    outcome=out(175,
        "The export query timed out again after the September audience refresh doubled the membership table.",
        "The daily segment load failed on the warehouse export timeout. TTLs were extended and the load run "
        "again with the export in 8 splits; no delivery was lost.",
        [(rb("segments-rerun-bulk-load", "with 8 export splits"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("UNDER6", "UNDER", "2025-09-05T09:35:00Z", "human", "advertiser-console", "high",
    "Fennel & Vine + Quarry Outdoor not spending since morning",
    "Both at 0-2% of daily budget at 09:30 UTC; normally ~20% by now. Console Pacing tab shows pace 0.00 again.",
    ["underdelivery"], [],
    human_labels("slack", "ad-ops", "us-east", reporter="am-rachel"), 60,
    outcome=out(95,
        "An IAM policy tightening on the checkpoint bucket denied the pacer's GetObject; pods restarted for a "
        "kernel patch came up with no state.",
        "Pacing went to zero after pacer pods restarted and could not read their checkpoint bucket. After the "
        "IAM policy was fixed, loading the 08:00 checkpoint restored pacing.",
        [("fix the checkpoint bucket IAM policy for budget-pacer", "succeeded", None),
         (rb("pacer-restore-pacing-checkpoint", "with checkpoint 08:00"), "succeeded", "pacer-restore-pacing-checkpoint")],
        "priya.n", "pacer-restore-pacing-checkpoint"))

inc("REPORT7", "REPORT", "2025-09-10T14:05:00Z", "human", "reporting-etl", "medium",
    "reporting-etl checkpoints failing, console ~4h behind",
    "Checkpoint duration crept from 3 min to >10 min since 10:00; three failures in a row and the job is "
    "restarting. TaskManager logs have S3 503 SlowDown.",
    ["checkpoint-failure", "report-delay"],
    ["com.amazonaws.services.s3.model.AmazonS3Exception: Please reduce your request rate. (Service: Amazon S3; "
     "Status Code: 503; Error Code: SlowDown)"],
    human_labels("slack", "data-platform", "us-east", reporter="amara.d"), 35,
    outcome=out(90,
        "S3 request rate limits on the checkpoint prefix (no entropy injection in the checkpoint path), as in "
        "February.",
        "Checkpoints failed on S3 SlowDown again. Starting from the last completed checkpoint with the relaxed "
        "settings and entropy injection in the checkpoint path fixed it for good.",
        [(rb("reporting-etl-restart-from-checkpoint", "with entropy injection on"), "succeeded",
          "reporting-etl-restart-from-checkpoint")],
        "amara.d", "reporting-etl-restart-from-checkpoint"))

inc("SURGED5", "SURGED", "2025-09-15T16:55:00Z", "human", "bid-gateway", "high",
    "Corvid sending 4x, bidder CPU climbing",
    "Corvid at 330k QPS (usually 80k). About 60% of Corvid requests in the sample are duplicate request ids. "
    "bidder-us-east CPU 86% and rising, timeouts 2.6% on all exchanges.",
    ["qps-surge", "cpu-saturation"], [],
    human_labels("slack", "rtb", "us-east", reporter="tobias.k"), 20,
    outcome=out(60,
        "Corvid's new bidder-throttling service failed open after their deploy and retried every request.",
        "Corvid's retries quadrupled its traffic. Limiting Corvid to 90k QPS and dropping duplicates at the "
        "gateway brought CPU back to 60%.",
        [(rb("bidgw-cap-exchange-qps", "corvid 90k"), "succeeded", "bidgw-cap-exchange-qps")],
        "tobias.k", "bidgw-cap-exchange-qps"))

inc("SNAP7", "SNAP", "2025-09-19T10:25:00Z", "human", "bidder", "high",
    "heap on every bidder +70% at 10:02, p99 latency 70ms",
    "All regions. GC at ~25% CPU. Campaign index load log shows the snapshot at 1.05 GB. Nothing deployed.",
    ["gc-pause", "memory-pressure", "latency-spike"],
    ["campaign index: loaded snapshot v140223 (1.05 GB) in 51s"],
    human_labels("slack", "rtb", "multi", reporter="elena.r"), 20,
    outcome=out(60,
        "A new deal list for Oakridge Bank with 500k domains.",
        "Every bidder's heap jumped with a 1.05 GB snapshot from a deal list. Pinning v140198 and holding the "
        "deal's line items fixed heap and latency.",
        [(rb("campaign-pin-last-good-snapshot", "to v140198"), "succeeded", "campaign-pin-last-good-snapshot")],
        "elena.r", "campaign-pin-last-good-snapshot"))

inc("OVER8", "OVER", "2025-09-24T02:30:00Z", "page", "budget-pacer", "high",
    "[FIRING:1] PacerSpendEventLagHigh budget-pacer-eu",
    "Consumer group pacer-spend-eu lag 1.4M events (threshold 200k) for 20m",
    ["consumer-lag"], [],
    page_labels("PacerSpendEventLagHigh", "warning", "pacing", "pacing-eu-west", "eu-west", "pacing",
                group="pacer-spend-eu"), 5,
    outcome=out(60,
        "eu-west spend consumers were in a rebalance loop after one pod hit long GC pauses on a large ledger "
        "batch, the same pattern as January.",
        "eu-west spend counting stopped in a rebalance loop. The runbook held over-budget line items, restarted "
        "the eu consumers and replayed spend since 02:00; no line item ended the day over budget.",
        [(rb("pacer-resync-spend-consumer", "eu-west, since 02:00"), "succeeded", "pacer-resync-spend-consumer")],
        "sven.l", "pacer-resync-spend-consumer"))

inc("PROFN6", "PROFN", "2025-10-01T20:50:00Z", "human", "bidder", "medium",
    "eu-west bid timeouts, profile reads slow on as-euw-05 only",
    "Timeouts 2.4% in bidder-eu-west. as-euw-05 p99 read 28 ms, the rest fine. No cluster changes today and "
    "nothing migrating.",
    ["timeout", "latency-spike"], [],
    human_labels("slack", "rtb", "eu-west", reporter="marcus.o"), 25,
    outcome=out(60,
        "as-euw-05's NVMe drives were worn out (95% of rated life used); device latency rose.",
        "One eu-west profile-store node with worn drives slowed down. Quiescing as-euw-05 cleared timeouts; the "
        "node was replaced in the next quiet window.",
        [(rb("aerospike-quiesce-slow-node", "on as-euw-05"), "succeeded", "aerospike-quiesce-slow-node")],
        "marcus.o", "aerospike-quiesce-slow-node"))

inc("SURGEO5", "SURGEO", "2025-10-07T14:40:00Z", "page", "bid-gateway", "high",
    "[FIRING:1] BidGatewayUpstreamTimeoutsHigh bid-gateway-us-east",
    "Upstream (bidder) timeouts 4.4% of forwarded requests over 5m (threshold 2%)",
    ["timeout"], [],
    page_labels("BidGatewayUpstreamTimeoutsHigh", "warning", "rtb", "rtb-us-east", "us-east", "rtb"), 5,
    outcome=out(60,
        "Organic surge of about 45% on every exchange during the October shopping event; bidder HPA at its "
        "ceiling.",
        "Gateway upstream timeouts came from a saturated bidder fleet during an organic shopping-event surge. "
        "Raising the HPA max to 600 fixed it.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 520 -> 600"), "succeeded", "bidder-scale-out-fleet")],
        "tobias.k", "bidder-scale-out-fleet"))

inc("EV8", "EVDISK", "2025-10-14T03:05:00Z", "page", "event-bus", "high",
    "[FIRING:1] KafkaDataLogsDiskUsedHigh event-bus-msk b-4",
    "KafkaDataLogsDiskUsed 89% on broker b-4 (threshold 85%)",
    ["disk-full"], [],
    page_labels("KafkaDataLogsDiskUsedHigh", "warning", "data", "event-bus-msk", "us-east", "data-platform",
                broker="b-4"), 5,
    outcome=out(65,
        "Uneven partition placement after brokers b-4 to b-6 were added: b-4 held twice as many bid-logs-v2 "
        "partitions and filled first.",
        "b-4 filled first after the cluster was expanded without moving partitions. Shortening bid-logs-v2 "
        "retention and adding storage through the MSK API fixed it; partitions were reassigned the next day.",
        [(rb("msk-grow-broker-storage", "10 TB -> 12 TB"), "succeeded", "msk-grow-broker-storage")],
        "sven.l", "msk-grow-broker-storage"))

inc("PROFM6", "PROFM", "2025-10-21T19:15:00Z", "human", "bidder", "high",
    "bid timeouts + profile reads slow cluster-wide after the node swap",
    "Infra swapped as-use-01 for an i4i.8xlarge around 18:40. Since then p99 reads are 15-20 ms on every node "
    "and timeouts are around 3%.",
    ["timeout", "latency-spike"], [],
    human_labels("slack", "rtb", "us-east", reporter="priya.n"), 30,
    outcome=out(60,
        "Migrations to the replacement node at default speed during the evening peak.",
        "A node swap started migrations at peak and every node's reads slowed. Slowing migrations fixed it.",
        [(rb("aerospike-throttle-migrations", "threads 1"), "succeeded", "aerospike-throttle-migrations")],
        "priya.n", "aerospike-throttle-migrations"))

inc("SEG7", "SEG", "2025-10-28T06:45:00Z", "human", "advertiser-console", "medium",
    "Audience line items for 3 advertisers at zero since 05:00",
    "Brisa, Oakridge and Tidal: all audience-targeted line items at 0, contextual ones fine.",
    ["underdelivery"], [],
    human_labels("slack", "ad-ops", "eu-west", reporter="am-luis"), 70,
    outcome=out(130,
        "After the October clock change the loader built the partner's partition path from local time and "
        "missed the file; it loaded nothing and the segments expired.",
        "Audience line items stopped when segments expired after a load that missed its input file. TTLs were "
        "extended and the load run again from the right partition; the path now uses UTC.",
        [(rb("segments-rerun-bulk-load", "from partition 2025-10-27"), "succeeded", "segments-rerun-bulk-load")],
        "dana.h", "segments-rerun-bulk-load"))

inc("SURGED6", "SURGED", "2025-11-10T13:20:00Z", "page", "bid-gateway", "high",
    "[FIRING:1] BidGatewayExchangeQPSAnomaly bid-gateway-eu-west exchange=pylon",
    "Inbound QPS from pylon 3.1x its 7-day baseline",
    ["qps-surge"], [],
    page_labels("BidGatewayExchangeQPSAnomaly", "warning", "rtb", "rtb-eu-west", "eu-west", "rtb",
                exchange="pylon"), 5,
    outcome=out(60,
        "Pylon's newly launched EU point of presence shipped the retry logic Pylon had fixed in the US in "
        "February; every slow response was retried.",
        "A Pylon retry storm in eu-west. Limiting Pylon at the eu-west gateway and dropping duplicates fixed it.",
        [(rb("bidgw-cap-exchange-qps", "pylon 60k eu-west"), "succeeded", "bidgw-cap-exchange-qps")],
        "amara.d", "bidgw-cap-exchange-qps"))

inc("SURGEO6", "SURGEO", "2025-11-28T14:05:00Z", "page", "bidder", "critical",
    "[FIRING:1] BidderCPUSaturation bidder-us-east",
    "Average bidder CPU 95% over 10m with HPA at maxReplicas (600)",
    ["cpu-saturation"], [],
    page_labels("BidderCPUSaturation", "critical", "rtb", "bidder-us-east", "us-east", "rtb"), 5,
    outcome=out(55,
        "Organic Black Friday surge across every exchange; the HPA ceiling of 600 was reached.",
        "Black Friday filled the bidder fleet. Raising the HPA max to 720 fixed CPU and timeouts.",
        [(rb("bidder-scale-out-fleet", "maxReplicas 600 -> 720"), "succeeded", "bidder-scale-out-fleet")],
        "marcus.o", "bidder-scale-out-fleet"))

inc("SURGEO6R", "SURGEO", "2025-11-28T14:11:00Z", "page", "bid-gateway", "high",
    "[FIRING:1] BidGatewayUpstreamTimeoutsHigh bid-gateway-us-east",
    "",
    ["timeout"], [],
    page_labels("BidGatewayUpstreamTimeoutsHigh", "warning", "rtb", "rtb-us-east", "us-east", "rtb"), 4,
    repage_of="SURGEO6", outcome=None)


# ---------------------------------------------------------------------------
# Catalog timeline (applies other than incidents and outcomes)
# ---------------------------------------------------------------------------
CATALOG = []  # (at, kind, payload)


def apply_runbook(at, name, spec=None, revision=None):
    CATALOG.append((at, "runbook", {"name": name, "spec": spec or RUNBOOKS[name], "revision": revision}))


CATALOG.append(("2025-01-02T00:00:00Z", "topology", None))
for _n in ["aerospike-quiesce-slow-node", "bidder-scale-out-fleet", "pacer-restore-pacing-checkpoint",
           "segments-rerun-bulk-load", "reporting-etl-restart-from-checkpoint", "argo-rollback-service"]:
    apply_runbook("2025-01-02T00:00:00Z", _n)
apply_runbook("2025-01-20T10:00:00Z", "pacer-resync-spend-consumer", PACER_RESYNC_V1, revision="1")  # after OVER1
apply_runbook("2025-01-27T10:00:00Z", "campaign-pin-last-good-snapshot")  # after SNAP1
apply_runbook("2025-02-21T10:00:00Z", "bidgw-cap-exchange-qps")  # after SURGED1
apply_runbook("2025-03-03T10:00:00Z", "aerospike-throttle-migrations")  # after PROFM1
apply_runbook("2025-03-05T10:00:00Z", "kafka-vm-grow-log-volume")  # after EV1 and EV2
apply_runbook("2025-04-28T10:00:00Z", "pacer-resync-spend-consumer", PACER_RESYNC_V2, revision="2")  # after OVER4
apply_runbook("2025-06-10T10:00:00Z", "msk-grow-broker-storage")  # ahead of the MSK move
for _m in MIGRATIONS:
    CATALOG.append((_m["at"], "migration", _m))

SURGE_TOPIC = "bidder saturation during a bid request surge"
SURGE_CLAIMS = [
    {"memory": "{{SURGEO1}}", "claim": "raise the bidder fleet's replica ceiling; more pods absorbed the surge "
                                      "and timeouts cleared"},
    {"memory": "{{SURGED1}}", "claim": "adding bidder pods made it worse: one exchange's retries ate the new "
                                      "capacity; limiting that exchange at the gateway and dropping its duplicate "
                                      "requests fixed it"},
]
PROF_TOPIC = "profile-store read latency causing bid timeouts"
PROF_CLAIMS = [
    {"memory": "{{PROFN1}}", "claim": "quiesce the slow profile-store node; its replicas serve the reads and bid "
                                     "timeouts clear within minutes"},
    {"memory": "{{PROFM1}}", "claim": "quiescing a node made it worse because it started more partition "
                                     "migrations; slowing migrations down fixed it; do not quiesce"},
]
CATALOG.append(("2025-02-22T10:00:00Z", "contradiction", {
    "name": "bid-surge-response", "topic": SURGE_TOPIC,
    "memories": ["{{SURGEO1}}", "{{SURGED1}}"], "claims": SURGE_CLAIMS,
    "resolution": {"state": "open"}}))
CATALOG.append(("2025-03-04T10:00:00Z", "contradiction", {
    "name": "profile-store-read-latency-response", "topic": PROF_TOPIC,
    "memories": ["{{PROFN1}}", "{{PROFM1}}"], "claims": PROF_CLAIMS,
    "resolution": {"state": "open"}}))
CATALOG.append(("2025-04-18T10:00:00Z", "contradiction", {
    "name": "bid-surge-response", "topic": SURGE_TOPIC,
    "memories": ["{{SURGEO1}}", "{{SURGED1}}", "{{SURGED2}}", "{{SURGEO2}}"],
    "claims": SURGE_CLAIMS + [
        {"memory": "{{SURGED2}}", "claim": "one exchange at 3.4x its own baseline, others flat: the gateway limit "
                                          "on that exchange fixed it"},
        {"memory": "{{SURGEO2}}", "claim": "every exchange up about 40% together, no duplicates: more bidder pods "
                                          "fixed it"}],
    "resolution": {"state": "reconciled", "note":
        "Both fixes hold, under different conditions. If one exchange's QPS jumped far above its own baseline "
        "(duplicate request ids, an unfiltered new data center, a retry storm) while the others are flat, limit "
        "that exchange at the gateway and drop its duplicates (bidgw-cap-exchange-qps); do not add bidder pods, "
        "the exchange eats them. If every exchange grew together in line with its own baseline and there are no "
        "duplicates (sports finals, shopping days), raise the bidder fleet ceiling (bidder-scale-out-fleet); "
        "limiting one exchange then only costs revenue."}}))
CATALOG.append(("2025-07-08T10:00:00Z", "contradiction", {
    "name": "profile-store-read-latency-response", "topic": PROF_TOPIC,
    "memories": ["{{PROFN1}}", "{{PROFM1}}", "{{PROFN2}}", "{{PROFM2}}", "{{PROFN3}}", "{{PROFM3}}", "{{PROFM4}}"],
    "claims": PROF_CLAIMS + [
        {"memory": "{{PROFM2}}", "claim": "slowing migrations to a replacement node fixed cluster-wide slow reads"},
        {"memory": "{{PROFN3}}", "claim": "one node slow from a defrag backlog with no migrations: quiescing it "
                                         "fixed the timeouts"}],
    "resolution": {"state": "reconciled", "note":
        "Both fixes hold, under different conditions. If partitions are migrating (migrate_partitions_remaining "
        "above 0 after a node was added, replaced, rebooted or the rack config changed) and reads are slow on "
        "every node, slow the migrations down (aerospike-throttle-migrations) and never quiesce: quiescing starts "
        "more migrations. If nothing is migrating and one node's reads are slow (defrag backlog, failing, worn "
        "or buggy NVMe), quiesce that node (aerospike-quiesce-slow-node)."}}))

# Words that would leak the fix into an incident's text.
BANNED = ["runbook", "rollback", "roll back", "rolled back", "revert", "quiesce", "resync", "re-sync", "restore",
          "rerun", "re-run", "scale out", "scale-out", "scaled out", "pinned", "pin the", "pin to", "throttle",
          "capping", "cap the", "cap it", "replay", "resize", "grow the", "undo", "hold the", "hold them",
          "unaligned", "migrate-threads", "checkpoint load", "purge", "invalidate"]


# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------
def build():
    incs = sorted(INCIDENTS, key=lambda i: ts(i["at"]))
    ids = {}
    for n, i in enumerate(incs, 1):
        ids[i["key"]] = "ad-%04d" % n

    def sub(x):
        if isinstance(x, str):
            return re.sub(r"\{\{([A-Z0-9]+)\}\}", lambda m: ids[m.group(1)], x)
        if isinstance(x, list):
            return [sub(v) for v in x]
        if isinstance(x, dict):
            return {k: sub(v) for k, v in x.items()}
        return x

    out_at = {}
    for i in incs:
        if i["outcome"]:
            out_at[i["key"]] = ts(i["at"]) + timedelta(minutes=i["outcome"]["delay"])

    rb_applies = [(ts(a), p["name"]) for a, k, p in CATALOG if k == "runbook"]
    migr = [(ts(a), p) for a, k, p in CATALOG if k == "migration"]

    def applied(t):
        return {n for (a, n) in rb_applies if a < t}

    def stale(t):
        s = set()
        for a, m in migr:
            if a <= t:
                s.update(m["spec"]["impactedRunbooks"])
        return s

    def truth(i):
        t = ts(i["at"])
        g = i["group"]
        live = [r for r in GROUPS[g]["fixes"] if r in applied(t) and r not in stale(t)]
        right = live[-1] if live else None
        prior = [o for o in incs if o["group"] == g and ts(o["at"]) < t and o["key"] in out_at
                 and out_at[o["key"]] < t]
        prior.sort(key=lambda o: ts(o["at"]), reverse=True)
        unsafe = set(stale(t))
        for o in prior:
            for (_txt, res, r) in o["outcome"]["actions"]:
                if res == "failed" and r:
                    unsafe.add(r)
        unsafe.discard(right)
        return {"precedents": [ids[o["key"]] for o in prior], "runbook": right,
                "novel": not prior, "unsafeRunbooks": sorted(unsafe)}

    events = []  # (time, seq, event)
    seq = 0

    def add(t, ev):
        nonlocal seq
        seq += 1
        events.append((t, seq, ev))

    for a, k, p in CATALOG:
        t = ts(a)
        if k == "topology":
            obj = {"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
                   "data": {"topology": topology_yaml()}}
        elif k == "runbook":
            md = {"name": p["name"]}
            if p["revision"]:
                md["annotations"] = {"recall.dev/revision": p["revision"]}
            obj = {"apiVersion": API, "kind": "Runbook", "metadata": md, "spec": p["spec"]}
        elif k == "migration":
            obj = {"apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": p["name"]},
                   "spec": p["spec"]}
        elif k == "contradiction":
            obj = {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": p["name"]},
                   "spec": sub({"topic": p["topic"], "memories": p["memories"], "claims": p["claims"],
                                "resolution": p["resolution"]})}
        add(t, {"at": fmt(t), "type": "apply", "object": obj})

    truths = {}
    for i in incs:
        t = ts(i["at"])
        spec = {"service": i["service"], "severity": i["severity"], "title": i["title"]}
        if i["description"]:
            spec["description"] = i["description"]
        spec["symptoms"] = i["symptoms"]
        if i["errs"]:
            spec["errorSignatures"] = i["errs"]
        if i["deployment"]:
            spec["deployment"] = i["deployment"]
        spec["startedAt"] = fmt(t - timedelta(minutes=i["started"]))
        spec["labels"] = i["labels"]
        tr = truth(i)
        truths[i["key"]] = tr
        add(t, {"at": fmt(t), "type": "incident",
                "object": {"apiVersion": API, "kind": "Incident", "metadata": {"name": ids[i["key"]]}, "spec": spec},
                "truth": tr})
        o = i["outcome"]
        if o:
            res = {"rootCause": sub(o["root"]), "summary": sub(o["summary"]), "runbook": o["runbook"],
                   "actions": [{"action": sub(txt), "result": r} for (txt, r, _rb) in o["actions"]],
                   "confirmedBy": o["by"]}
            add(out_at[i["key"]], {"at": fmt(out_at[i["key"]]), "type": "outcome", "incident": ids[i["key"]],
                                   "resolution": res})

    events.sort(key=lambda e: (e[0], e[1]))
    check(incs, ids, out_at, applied, events)
    return incs, ids, out_at, truths, events


def check(incs, ids, out_at, applied, events):
    times = [ts(i["at"]) for i in incs]
    assert len(set(times)) == len(times), "two incidents at the same time"
    for i in incs:
        text = " ".join([i["title"], i["description"], " ".join(i["symptoms"]), " ".join(i["errs"]),
                         json.dumps(i["labels"]), json.dumps(i["deployment"] or {})]).lower()
        for w in BANNED + list(RUNBOOKS):
            assert w not in text, (i["key"], w)
        assert 0 < i["started"] <= 100, i["key"]
        assert i["group"] in GROUPS, i["key"]
        if i["style"] == "page":
            assert i["labels"].get("source") == "alertmanager" and "alertname" in i["labels"], i["key"]
            assert i["title"].startswith("[FIRING:"), i["key"]
            assert len(i["symptoms"]) <= 2, i["key"]
        else:
            assert i["labels"].get("source") != "alertmanager", i["key"]
        o = i["outcome"]
        if o:
            have = applied(out_at[i["key"]])
            for (_t, r, rbn) in o["actions"]:
                assert r in ("succeeded", "failed", "partial")
                assert rbn is None or rbn in have, (i["key"], rbn)
            assert o["runbook"] is None or o["runbook"] in have, (i["key"], o["runbook"])


def write(events):
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for _t, _s, ev in events:
            f.write(json.dumps(ev, ensure_ascii=False, sort_keys=False) + "\n")


def stats(incs, ids, out_at, truths, events):
    import collections
    print("events", len(events), collections.Counter(e[2]["type"] for e in events))
    print("incidents", len(incs), "pages", sum(i["style"] == "page" for i in incs),
          "human", sum(i["style"] == "human" for i in incs),
          "with outcome", len(out_at))
    nov = [ids[i["key"]] for i in incs if truths[i["key"]]["novel"]]
    print("novel", len(nov), nov)
    print("runbook null", sum(truths[i["key"]]["runbook"] is None for i in incs))
    print("with unsafe", sum(bool(truths[i["key"]]["unsafeRunbooks"]) for i in incs))
    for i in incs:
        tr = truths[i["key"]]
        o = i["outcome"]
        print("%s %s %-8s %-6s %-19s %-5s rb=%-38s unsafe=%s prec=%s out=%s" % (
            ids[i["key"]], i["at"][:16], i["key"], i["style"], i["service"], tr["novel"], tr["runbook"],
            ",".join(tr["unsafeRunbooks"]), ",".join(tr["precedents"]),
            fmt(out_at[i["key"]])[:16] if o else "-"))


if __name__ == "__main__":
    import sys
    result = build()
    write(result[4])
    if "--stats" in sys.argv:
        stats(*result)
