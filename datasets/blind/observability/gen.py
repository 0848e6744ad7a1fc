#!/usr/bin/env python3
"""Generate history.jsonl: a fictional incident history of Lanternfish, a hosted
observability SaaS.  Standard library only, no randomness, no clock: running it
again rewrites the same file byte for byte.

Everything here is made up: the company, tenants, people, hosts and incidents.

The answer key (`truth`) is not written by hand per incident.  It is derived from
  * the incident's failure family (FAMILIES),
  * the catalog at the incident's time (which runbooks have been applied),
  * migrations applied before it (stale runbooks), and
  * outcomes recorded before it (precedents, failed runbooks).
See derive_truth() and README.md.
"""
import json
import os
import sys
from datetime import datetime, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"


def T(s):
    """'2025-02-06 03:12' -> datetime (UTC, naive)."""
    return datetime.strptime(s, "%Y-%m-%d %H:%M")


def fmt(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Topology (an edge means "calls")
# ---------------------------------------------------------------------------
TOPOLOGY_V1 = [
    ("otel-collector", ["ingest-gateway"]),
    ("ingest-gateway", ["auth-service", "metrics-ingester", "kafka"]),
    ("kafka", []),
    ("metrics-ingester", ["object-store"]),
    ("metrics-compactor", ["object-store"]),
    ("log-indexer", ["kafka", "object-store"]),
    ("trace-store", ["kafka", "object-store"]),
    ("query-frontend", ["results-cache", "metrics-ingester", "object-store",
                        "log-indexer", "trace-store"]),
    ("results-cache", []),
    ("rule-evaluator", ["query-frontend", "notification-dispatcher"]),
    ("notification-dispatcher", []),
    ("usage-meter", ["kafka"]),
    ("web-ui", ["query-frontend", "auth-service", "rule-evaluator", "usage-meter"]),
    ("auth-service", []),
    ("object-store", []),
]
# After the Kafka move to Strimzi/KRaft, brokers tier closed segments to the
# object store.
TOPOLOGY_V2 = [(s, (["object-store"] if s == "kafka" else d)) for s, d in TOPOLOGY_V1]


def topology_cm(topo):
    lines = ["%s: {dependsOn: [%s]}" % (s, ", ".join(d)) for s, d in topo]
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "service-topology",
                     "labels": {"recall.dev/topology": "true"}},
        "data": {"topology": "\n".join(lines) + "\n"},
    }


# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------
TOOLBOX = "registry.lanternfish.example/ops/toolbox:2025.01"
KUBECTL = "bitnami/kubectl:1.30"
HELM = "alpine/helm:3.14.4"


def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command,
            "dryRunCommand": dry, "rollbackCommand": rollback, "risk": risk,
            "blastRadius": blast, "estimatedSeconds": secs}


ZK = "zk-1.kafka.lanternfish.internal:2181"

RB_SPECS = {}

RB_SPECS["helm-rollback-release"] = [{
    "title": "Roll a service's Helm release back to its previous revision",
    "services": ["web-ui", "query-frontend", "ingest-gateway", "rule-evaluator",
                 "notification-dispatcher", "usage-meter", "auth-service"],
    "symptoms": ["5xx", "4xx", "error-rate", "latency-spike"],
    "steps": [
        step("show-release-history", HELM,
             ["helm", "history", "$(RELEASE)", "--namespace", "$(NAMESPACE)", "--max", "5"],
             ["helm", "history", "$(RELEASE)", "--namespace", "$(NAMESPACE)", "--max", "5"],
             [], "low", "read only", 10),
        step("rollback-to-previous", HELM,
             ["helm", "rollback", "$(RELEASE)", "0", "--namespace", "$(NAMESPACE)",
              "--wait", "--timeout", "10m"],
             ["helm", "diff", "rollback", "$(RELEASE)", "0", "--namespace", "$(NAMESPACE)"],
             ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "--namespace",
              "$(NAMESPACE)", "--wait"],
             "medium", "one service in one region", 420),
    ],
}]

RB_SPECS["kafka-vm-lower-topic-retention"] = [{
    "title": "Free a full Kafka broker disk by lowering a topic's retention (VM brokers)",
    "services": ["kafka", "ingest-gateway", "log-indexer", "trace-store"],
    "symptoms": ["disk-full", "under-replicated", "5xx", "consumer-lag"],
    "steps": [
        step("find-largest-topic-dirs", TOOLBOX,
             ["ssh", "$(BROKER_HOST)", "du -sh /var/lib/kafka/data/* | sort -h | tail -20"],
             ["ssh", "$(BROKER_HOST)", "df -h /var/lib/kafka"],
             [], "low", "read only", 30),
        step("lower-topic-retention", TOOLBOX,
             ["kafka-configs.sh", "--zookeeper", ZK, "--alter", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)", "--add-config", "retention.ms=$(RETENTION_MS)"],
             ["kafka-configs.sh", "--zookeeper", ZK, "--describe", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)"],
             ["kafka-configs.sh", "--zookeeper", ZK, "--alter", "--entity-type", "topics",
              "--entity-name", "$(TOPIC)", "--add-config", "retention.ms=$(OLD_RETENTION_MS)"],
             "medium", "one topic on every broker: data older than the new retention is deleted", 60),
        step("wait-for-log-cleaner", TOOLBOX,
             ["ssh", "$(BROKER_HOST)", "/opt/ops/wait-disk-below.sh /var/lib/kafka 80 15m"],
             ["ssh", "$(BROKER_HOST)", "df -h /var/lib/kafka"],
             [], "low", "read only", 900),
        step("restart-offline-log-dir", TOOLBOX,
             ["ssh", "$(BROKER_HOST)", "sudo systemctl restart kafka"],
             ["ssh", "$(BROKER_HOST)", "systemctl status kafka --no-pager"],
             [], "medium", "one broker; its leaders move for about two minutes", 180),
    ],
}]

RB_SPECS["strimzi-expand-broker-volume"] = [{
    "title": "Grow the volumes of a Strimzi Kafka node pool and shorten local retention of the hot topic",
    "services": ["kafka", "ingest-gateway", "log-indexer", "trace-store"],
    "symptoms": ["disk-full", "under-replicated", "5xx", "consumer-lag"],
    "steps": [
        step("check-volume-usage", KUBECTL,
             ["kubectl", "-n", "kafka", "exec", "$(BROKER_POD)", "--", "df", "-h",
              "/var/lib/kafka/data-0"],
             ["kubectl", "-n", "kafka", "get", "pvc", "-l", "strimzi.io/pool-name=$(NODE_POOL)"],
             [], "low", "read only", 15),
        step("grow-node-pool-volumes", KUBECTL,
             ["kubectl", "-n", "kafka", "patch", "kafkanodepool", "$(NODE_POOL)", "--type",
              "json", "-p",
              '[{"op":"replace","path":"/spec/storage/volumes/0/size","value":"$(NEW_SIZE)"}]'],
             ["kubectl", "-n", "kafka", "patch", "kafkanodepool", "$(NODE_POOL)", "--type",
              "json", "--dry-run=server", "-p",
              '[{"op":"replace","path":"/spec/storage/volumes/0/size","value":"$(NEW_SIZE)"}]'],
             [], "medium", "every broker of the node pool; online resize, volumes cannot shrink again",
             900),
        step("shorten-local-retention", KUBECTL,
             ["kubectl", "-n", "kafka", "patch", "kafkatopic", "$(TOPIC)", "--type", "merge",
              "-p", '{"spec":{"config":{"local.retention.ms":$(LOCAL_RETENTION_MS)}}}'],
             ["kubectl", "-n", "kafka", "patch", "kafkatopic", "$(TOPIC)", "--type", "merge",
              "--dry-run=server", "-p",
              '{"spec":{"config":{"local.retention.ms":$(LOCAL_RETENTION_MS)}}}'],
             ["kubectl", "-n", "kafka", "patch", "kafkatopic", "$(TOPIC)", "--type", "merge",
              "-p", '{"spec":{"config":{"local.retention.ms":$(OLD_LOCAL_RETENTION_MS)}}}'],
             "low", "one topic; older segments are read from the object store instead of local disk",
             60),
    ],
}]

_scale_out_steps = [
    step("scale-ingester-zones", KUBECTL,
         ["/opt/ops/ingester-zones.sh", "scale", "--replicas-per-zone", "$(REPLICAS_PER_ZONE)"],
         ["kubectl", "-n", "metrics", "get", "statefulset", "-l", "app=metrics-ingester",
          "-o", "wide"],
         [], "medium",
         "all tenants' series re-shard onto new ingesters; scaling down later needs the flush procedure",
         900),
    step("wait-ring-active", TOOLBOX,
         ["/opt/ops/ring.sh", "wait-active", "--ring", "ingester", "--timeout", "15m"],
         ["/opt/ops/ring.sh", "list", "--ring", "ingester"],
         [], "low", "read only", 900),
]
RB_SPECS["ingester-scale-out"] = [
    {
        "title": "Add metrics ingesters in every zone when memory grows across the fleet",
        "services": ["metrics-ingester"],
        "symptoms": ["memory-pressure", "oom-kill"],
        "steps": list(_scale_out_steps),
    },
    {   # revision 2, applied when the memory-pressure contradiction was reconciled
        "title": "Add metrics ingesters in every zone when memory grows across the fleet (refuses when one tenant dominates)",
        "services": ["metrics-ingester"],
        "symptoms": ["memory-pressure", "oom-kill"],
        "steps": [step("check-tenant-concentration", TOOLBOX,
                       ["/opt/ops/top-tenant-share.sh", "--fail-above", "0.25"],
                       ["/opt/ops/top-tenant-share.sh", "--top", "5"],
                       [], "low", "read only; stops the procedure if one tenant holds over 25% of in-memory series",
                       20)] + list(_scale_out_steps),
    },
]

RB_SPECS["ingester-cap-tenant-series"] = [{
    "title": "Limit one tenant's in-memory series when its cardinality explodes",
    "services": ["metrics-ingester", "ingest-gateway"],
    "symptoms": ["oom-kill", "memory-pressure", "high-cardinality", "write-errors"],
    "steps": [
        step("find-top-tenants", TOOLBOX,
             ["/opt/ops/top-tenant-share.sh", "--top", "5"],
             ["/opt/ops/top-tenant-share.sh", "--top", "5"],
             [], "low", "read only", 20),
        step("set-series-limit", TOOLBOX,
             ["/opt/ops/runtime-overrides.sh", "set", "--tenant", "$(TENANT)",
              "max_global_series_per_user", "$(LIMIT)"],
             ["/opt/ops/runtime-overrides.sh", "diff", "--tenant", "$(TENANT)",
              "max_global_series_per_user", "$(LIMIT)"],
             ["/opt/ops/runtime-overrides.sh", "unset", "--tenant", "$(TENANT)",
              "max_global_series_per_user"],
             "medium", "one tenant: its new series above the limit are refused with 429", 60),
        step("notify-tenant", TOOLBOX,
             ["/opt/ops/notify-tenant.sh", "--tenant", "$(TENANT)", "--template",
              "series-limit-applied"],
             ["/opt/ops/notify-tenant.sh", "--tenant", "$(TENANT)", "--template",
              "series-limit-applied", "--preview"],
             [], "low", "one e-mail to the tenant's admins", 10),
    ],
}]

RB_SPECS["ingester-forget-ring-member"] = [{
    "title": "Remove dead ingester entries from the hash ring",
    "services": ["metrics-ingester", "ingest-gateway"],
    "symptoms": ["ring-unhealthy", "write-errors", "5xx"],
    "steps": [
        step("list-unhealthy-members", TOOLBOX,
             ["/opt/ops/ring.sh", "list", "--ring", "ingester", "--state", "unhealthy"],
             ["/opt/ops/ring.sh", "list", "--ring", "ingester", "--state", "unhealthy"],
             [], "low", "read only", 10),
        step("check-no-pod-behind-member", KUBECTL,
             ["/opt/ops/ring.sh", "check-orphan", "--ring", "ingester", "--instance", "$(INSTANCE)"],
             ["/opt/ops/ring.sh", "check-orphan", "--ring", "ingester", "--instance", "$(INSTANCE)"],
             [], "low", "read only; stops if a running pod still owns the entry", 10),
        step("forget-member", TOOLBOX,
             ["/opt/ops/ring.sh", "forget", "--ring", "ingester", "--instance", "$(INSTANCE)"],
             ["/opt/ops/ring.sh", "show", "--ring", "ingester", "--instance", "$(INSTANCE)"],
             [], "medium",
             "series replicas held by the dead entry; a live ingester would register again on its next heartbeat",
             30),
    ],
}]

RB_SPECS["compactor-mark-block-no-compact"] = [{
    "title": "Unblock a halted compactor by excluding overlapping blocks from compaction",
    "services": ["metrics-compactor"],
    "symptoms": ["compaction-halted", "block-growth", "slow-queries"],
    "steps": [
        step("find-overlapping-blocks", TOOLBOX,
             ["/opt/ops/bucket-tool.sh", "verify", "--tenant", "$(TENANT)", "--issue",
              "overlapped-blocks"],
             ["/opt/ops/bucket-tool.sh", "verify", "--tenant", "$(TENANT)", "--issue",
              "overlapped-blocks"],
             [], "low", "read only", 120),
        step("mark-no-compact", TOOLBOX,
             ["/opt/ops/bucket-tool.sh", "mark", "--tenant", "$(TENANT)", "--block",
              "$(BLOCK_ULID)", "--marker", "no-compact", "--details", "overlap"],
             ["/opt/ops/bucket-tool.sh", "show", "--tenant", "$(TENANT)", "--block",
              "$(BLOCK_ULID)"],
             ["/opt/ops/bucket-tool.sh", "unmark", "--tenant", "$(TENANT)", "--block",
              "$(BLOCK_ULID)", "--marker", "no-compact"],
             "medium", "one tenant's marked blocks stay uncompacted (queried as they are)", 30),
        step("restart-compactor", KUBECTL,
             ["kubectl", "-n", "metrics", "rollout", "restart", "statefulset/metrics-compactor"],
             ["kubectl", "-n", "metrics", "get", "pods", "-l", "app=metrics-compactor"],
             [], "low", "compaction restarts from the last completed plan", 120),
    ],
}]

RB_SPECS["results-cache-drop-tenant-entries"] = [{
    "title": "Invalidate one tenant's query results cache by raising its cache generation",
    "services": ["query-frontend", "results-cache", "web-ui"],
    "symptoms": ["stale-results", "dashboard-gaps"],
    "steps": [
        step("compare-cached-uncached", TOOLBOX,
             ["/opt/ops/qf-compare.sh", "--tenant", "$(TENANT)", "--query", "$(QUERY)",
              "--range", "$(RANGE)"],
             ["/opt/ops/qf-compare.sh", "--tenant", "$(TENANT)", "--query", "$(QUERY)",
              "--range", "$(RANGE)"],
             [], "low", "read only; two queries for one tenant", 30),
        step("raise-cache-generation", TOOLBOX,
             ["/opt/ops/runtime-overrides.sh", "increment", "--tenant", "$(TENANT)",
              "results_cache_generation"],
             ["/opt/ops/runtime-overrides.sh", "diff", "--tenant", "$(TENANT)",
              "results_cache_generation"],
             [], "low",
             "one tenant's cached results; its next queries run uncached (old entries expire on their own)",
             60),
    ],
}]

_scale_workers_steps = [
    step("scale-dispatcher-workers", KUBECTL,
         ["kubectl", "-n", "alerting", "scale", "deployment/notification-dispatcher",
          "--replicas", "$(REPLICAS)"],
         ["kubectl", "-n", "alerting", "get", "deployment/notification-dispatcher", "-o", "wide"],
         ["kubectl", "-n", "alerting", "scale", "deployment/notification-dispatcher",
          "--replicas", "$(OLD_REPLICAS)"],
         "low", "notification-dispatcher in one region; more outbound connections to receivers", 120),
    step("watch-queue-drain", TOOLBOX,
         ["/opt/ops/dispatcher.sh", "wait-queue-below", "--depth", "1000", "--timeout", "20m"],
         ["/opt/ops/dispatcher.sh", "queue-stats"],
         [], "low", "read only", 600),
]
RB_SPECS["dispatcher-scale-workers"] = [
    {
        "title": "Add notification dispatcher workers to drain a volume backlog",
        "services": ["notification-dispatcher"],
        "symptoms": ["notification-backlog", "alert-delay"],
        "steps": list(_scale_workers_steps),
    },
    {   # revision 2, applied when the backlog contradiction was reconciled
        "title": "Add notification dispatcher workers to drain a volume backlog (refuses when one receiver holds the workers)",
        "services": ["notification-dispatcher"],
        "symptoms": ["notification-backlog", "alert-delay"],
        "steps": [step("check-receiver-concentration", TOOLBOX,
                       ["/opt/ops/dispatcher.sh", "top-receivers", "--by", "inflight",
                        "--fail-above", "0.30"],
                       ["/opt/ops/dispatcher.sh", "top-receivers", "--by", "inflight"],
                       [], "low", "read only; stops the procedure if one receiver host holds over 30% of in-flight requests",
                       15)] + list(_scale_workers_steps),
    },
]

RB_SPECS["dispatcher-isolate-slow-webhook"] = [{
    "title": "Move a timing-out webhook receiver host to the slow dispatch lane",
    "services": ["notification-dispatcher"],
    "symptoms": ["alert-delay", "notification-backlog", "webhook-timeout"],
    "steps": [
        step("find-slow-receivers", TOOLBOX,
             ["/opt/ops/dispatcher.sh", "top-receivers", "--by", "inflight", "--top", "10"],
             ["/opt/ops/dispatcher.sh", "top-receivers", "--by", "inflight", "--top", "10"],
             [], "low", "read only", 10),
        step("move-to-slow-lane", TOOLBOX,
             ["/opt/ops/dispatcher.sh", "lane", "set", "--receiver-host", "$(HOST)", "--lane",
              "slow", "--timeout", "5s", "--max-inflight", "4"],
             ["/opt/ops/dispatcher.sh", "lane", "show", "--receiver-host", "$(HOST)"],
             ["/opt/ops/dispatcher.sh", "lane", "set", "--receiver-host", "$(HOST)", "--lane",
              "default"],
             "medium", "notifications to one receiver host go out slower; everyone else's are freed", 20),
        step("notify-receiver-owner", TOOLBOX,
             ["/opt/ops/notify-tenant.sh", "--receiver-host", "$(HOST)", "--template",
              "receiver-slow-lane"],
             ["/opt/ops/notify-tenant.sh", "--receiver-host", "$(HOST)", "--template",
              "receiver-slow-lane", "--preview"],
             [], "low", "one e-mail to the owning tenant", 10),
    ],
}]

RB_SPECS["keycloak-reimport-idp-metadata"] = [{
    "title": "Re-import a tenant's SAML IdP metadata into its Keycloak realm",
    "services": ["auth-service", "web-ui"],
    "symptoms": ["login-failure"],
    "steps": [
        step("show-idp-config", "quay.io/keycloak/keycloak:22.0",
             ["kcadm.sh", "get", "identity-provider/instances/$(IDP_ALIAS)", "-r", "$(REALM)"],
             ["kcadm.sh", "get", "identity-provider/instances/$(IDP_ALIAS)", "-r", "$(REALM)"],
             [], "low", "read only", 10),
        step("import-metadata", "quay.io/keycloak/keycloak:22.0",
             ["/opt/ops/kc-import-idp.sh", "--realm", "$(REALM)", "--alias", "$(IDP_ALIAS)",
              "--metadata-url", "$(IDP_METADATA_URL)"],
             ["/opt/ops/kc-import-idp.sh", "--realm", "$(REALM)", "--alias", "$(IDP_ALIAS)",
              "--metadata-url", "$(IDP_METADATA_URL)", "--diff"],
             ["/opt/ops/kc-import-idp.sh", "--realm", "$(REALM)", "--alias", "$(IDP_ALIAS)",
              "--restore-previous"],
             "medium", "SSO logins of one tenant", 30),
    ],
}]

RB_SPECS["sso-broker-refresh-idp-connection"] = [{
    "title": "Reload a tenant's IdP metadata on the managed SSO broker connection",
    "services": ["auth-service", "web-ui"],
    "symptoms": ["login-failure"],
    "steps": [
        step("show-connection", TOOLBOX,
             ["/opt/ops/sso-broker.sh", "connection", "show", "--tenant", "$(TENANT)"],
             ["/opt/ops/sso-broker.sh", "connection", "show", "--tenant", "$(TENANT)"],
             [], "low", "read only", 10),
        step("reload-idp-metadata", TOOLBOX,
             ["/opt/ops/sso-broker.sh", "connection", "refresh-metadata", "--connection",
              "$(CONNECTION_ID)"],
             ["/opt/ops/sso-broker.sh", "connection", "refresh-metadata", "--connection",
              "$(CONNECTION_ID)", "--dry-run"],
             ["/opt/ops/sso-broker.sh", "connection", "restore-signing-cert", "--connection",
              "$(CONNECTION_ID)", "--version", "previous"],
             "medium", "SSO logins of one tenant", 30),
    ],
}]

RB_SPECS["rules-pause-tenant-group"] = [{
    "title": "Pause one tenant's runaway rule group so its evaluator shard catches up",
    "services": ["rule-evaluator"],
    "symptoms": ["missed-evaluations", "alert-delay"],
    "steps": [
        step("find-slowest-groups", TOOLBOX,
             ["/opt/ops/ruler.sh", "slowest-groups", "--shard", "$(SHARD)", "--top", "10"],
             ["/opt/ops/ruler.sh", "slowest-groups", "--shard", "$(SHARD)", "--top", "10"],
             [], "low", "read only", 10),
        step("pause-group", TOOLBOX,
             ["/opt/ops/ruler.sh", "pause-group", "--tenant", "$(TENANT)", "--namespace",
              "$(RULE_NAMESPACE)", "--group", "$(GROUP)"],
             ["/opt/ops/ruler.sh", "show-group", "--tenant", "$(TENANT)", "--namespace",
              "$(RULE_NAMESPACE)", "--group", "$(GROUP)"],
             ["/opt/ops/ruler.sh", "resume-group", "--tenant", "$(TENANT)", "--namespace",
              "$(RULE_NAMESPACE)", "--group", "$(GROUP)"],
             "medium", "one tenant's rule group stops evaluating (its alerts and recordings)", 20),
        step("notify-tenant", TOOLBOX,
             ["/opt/ops/notify-tenant.sh", "--tenant", "$(TENANT)", "--template",
              "rule-group-paused"],
             ["/opt/ops/notify-tenant.sh", "--tenant", "$(TENANT)", "--template",
              "rule-group-paused", "--preview"],
             [], "low", "one e-mail to the tenant's admins", 10),
    ],
}]

# When each runbook (revision) is applied.  (name, revision index, time)
RUNBOOK_APPLIES = [
    ("helm-rollback-release", 0, "2025-02-03 09:00"),
    ("kafka-vm-lower-topic-retention", 0, "2025-02-03 09:01"),
    ("ingester-scale-out", 0, "2025-02-03 09:02"),
    ("dispatcher-scale-workers", 0, "2025-02-03 09:03"),
    ("compactor-mark-block-no-compact", 0, "2025-02-27 15:00"),   # after ob m1
    ("keycloak-reimport-idp-metadata", 0, "2025-03-04 10:30"),    # after s1
    ("ingester-cap-tenant-series", 0, "2025-03-12 14:00"),        # after card1
    ("results-cache-drop-tenant-entries", 0, "2025-03-14 16:00"), # after c1, c2
    ("ingester-forget-ring-member", 0, "2025-03-28 11:00"),       # after rg1
    ("dispatcher-isolate-slow-webhook", 0, "2025-04-10 12:05"),   # after w1
    ("rules-pause-tenant-group", 0, "2025-04-29 09:30"),          # after r1, r2
    ("ingester-scale-out", 1, "2025-05-22 16:05"),                # revision 2
    ("strimzi-expand-broker-volume", 0, "2025-06-11 10:00"),      # before the Kafka move
    ("dispatcher-scale-workers", 1, "2025-06-20 14:05"),          # revision 2
    ("sso-broker-refresh-idp-connection", 0, "2025-08-20 10:00"), # before the SSO move
]

# ---------------------------------------------------------------------------
# Migrations
# ---------------------------------------------------------------------------
MIGRATIONS = [
    {
        "name": "kafka-vms-to-strimzi-kraft",
        "at": "2025-06-14 06:00",
        "spec": {
            "targetService": "kafka",
            "migrationDate": "2025-06-14",
            "oldArch": "Apache Kafka 2.8 with a three-node ZooKeeper ensemble on six self-managed EC2 VMs per region",
            "newArch": "Apache Kafka 3.7 in KRaft mode run by the Strimzi operator on Kubernetes: node pools on persistent volume claims, closed segments tiered to the object store",
            "impactedRunbooks": ["kafka-vm-lower-topic-retention"],
            "impactedFixKeywords": ["kafka-configs.sh --zookeeper", "ssh to the broker VM",
                                    "/var/lib/kafka on the VM", "systemctl restart kafka"],
            "confidenceDeduction": 30,
        },
        "topology_after": TOPOLOGY_V2,
    },
    {
        "name": "keycloak-to-managed-sso-broker",
        "at": "2025-08-23 07:00",
        "spec": {
            "targetService": "auth-service",
            "migrationDate": "2025-08-23",
            "oldArch": "Self-hosted Keycloak 22, one realm per tenant, SAML and OIDC identity providers configured with kcadm",
            "newArch": "Managed SSO broker (hosted service); each tenant's IdP is a connection managed through the broker's admin API, auth-service keeps only sessions",
            "impactedRunbooks": ["keycloak-reimport-idp-metadata"],
            "impactedFixKeywords": ["kcadm.sh", "keycloak realm", "identity-provider/instances"],
            "confidenceDeduction": 28,
        },
        "topology_after": None,
    },
]

# ---------------------------------------------------------------------------
# Failure families.  fix: list of (from, runbook); the entry in force at the
# incident's time names the right runbook, which counts only once applied.
# ---------------------------------------------------------------------------
FAMILIES = {
    "KDISK": {"fix": [("2025-01-01 00:00", "kafka-vm-lower-topic-retention"),
                      ("2025-06-14 06:00", "strimzi-expand-broker-volume")]},
    "GROWTH": {"fix": [("2025-01-01 00:00", "ingester-scale-out")]},
    "CARD": {"fix": [("2025-01-01 00:00", "ingester-cap-tenant-series")]},
    "RING": {"fix": [("2025-01-01 00:00", "ingester-forget-ring-member")]},
    "COMPACT": {"fix": [("2025-01-01 00:00", "compactor-mark-block-no-compact")]},
    "CACHE": {"fix": [("2025-01-01 00:00", "results-cache-drop-tenant-entries")]},
    "STORM": {"fix": [("2025-01-01 00:00", "dispatcher-scale-workers")]},
    "WEBHOOK": {"fix": [("2025-01-01 00:00", "dispatcher-isolate-slow-webhook")]},
    "SAML": {"fix": [("2025-01-01 00:00", "keycloak-reimport-idp-metadata"),
                     ("2025-08-23 07:00", "sso-broker-refresh-idp-connection")]},
    "RULE": {"fix": [("2025-01-01 00:00", "rules-pause-tenant-group")]},
    # one-offs
    "X-TRACEBIG": {"fix": [("2025-01-01 00:00", None)]},
    "X-BODYLIMIT": {"fix": [("2025-01-01 00:00", "helm-rollback-release")]},
    "X-USAGEDUP": {"fix": [("2025-01-01 00:00", None)]},
}

# ---------------------------------------------------------------------------
# Incidents
# ---------------------------------------------------------------------------
REGIONS = {"use1": ("us-east-1", "obs-prod-use1"), "euc1": ("eu-central-1", "obs-prod-euc1")}
BRIDGE_SEVERITY = {"critical": "critical", "error": "high", "warning": "medium", "info": "low"}

INCIDENTS = []


def R(rb, result, detail=""):
    text = "run runbook %s" % rb + (" (%s)" % detail if detail else "")
    return {"action": text, "result": result, "_rb": rb}


def M(text, result):
    return {"action": "by hand: " + text, "result": result, "_rb": None}


def outcome(at, root, summary, actions, by):
    return {"at": at, "rootCause": root, "summary": summary, "actions": actions, "by": by}


def deploy(id_, rev, minutes):
    return {"id": id_, "revision": rev, "environment": "production", "minutesSinceDeploy": minutes}


def page(key, fam, at, service, alertname, level, instance, ns, team, summary,
         region="use1", firing=1, symptoms=(), pending=8, extra=None, outcome=None,
         dep=None, dup_of=None):
    reg, cluster = REGIONS[region]
    labels = {"source": "alertmanager", "alertname": alertname, "severity": level,
              "namespace": ns, "cluster": cluster, "region": reg, "team": team,
              "instance": instance}
    if extra:
        labels.update(extra)
    INCIDENTS.append({
        "key": key, "fam": fam, "at": at, "style": "page", "service": service,
        "severity": BRIDGE_SEVERITY[level],
        "title": "[FIRING:%d] %s %s" % (firing, alertname, instance),
        "description": summary, "symptoms": list(symptoms), "errorSignatures": [],
        "deployment": dep, "started": pending, "labels": labels, "outcome": outcome,
        "dup_of": dup_of,
    })


def human(key, fam, at, service, severity, title, desc, source, team, region="use1",
          symptoms=(), errs=(), started=30, extra=None, outcome=None, dep=None, dup_of=None):
    reg, _ = REGIONS[region]
    labels = {"source": source, "team": team, "region": reg}
    if extra:
        labels.update(extra)
    INCIDENTS.append({
        "key": key, "fam": fam, "at": at, "style": "support" if source == "support" else "engineer",
        "service": service, "severity": severity, "title": title, "description": desc,
        "symptoms": list(symptoms), "errorSignatures": list(errs), "deployment": dep,
        "started": started, "labels": labels, "outcome": outcome, "dup_of": dup_of,
    })


# ---- 1 ------------------------------------------------------------------
page("k1", "KDISK", "2025-02-06 03:12", "kafka", "KafkaUnderReplicatedPartitions", "critical",
     "kafka-broker-3", "kafka", "streaming",
     "Under-replicated partitions on kafka-broker-3: 148 (log dir /var/lib/kafka 97% used)",
     symptoms=["under-replicated"], pending=9,
     outcome=outcome("2025-02-06 04:05",
               "Tenant t-2291 turned on debug logging on about 400 pods; topic logs-raw (72 h retention, no size limit) filled the data disk of kafka-broker-3, which led the most logs-raw partitions",
               "kafka-broker-3's data disk reached 100% at 03:20 and its partitions went under-replicated. logs-raw retention was lowered from 72 h to 6 h, the log cleaner freed 1.1 TB in 12 minutes and the replicas caught up by 04:00. t-2291 was told about their debug logging.",
               [R("kafka-vm-lower-topic-retention", "succeeded", "logs-raw 72 h -> 6 h on kafka-broker-3")],
               "oncall-dmitri"))

human("c1", "CACHE", "2025-02-10 16:40", "query-frontend", "medium",
      "Tenant dashboards show zeros for a past window that Explore shows fine",
      "Escalated from support (t-0917). Their 'API overview' dashboard shows request rate dropping to 0 between 01:05 and 01:20 UTC last night. The same PromQL in Explore with a different step returns full data. Reloading the dashboard doesn't change anything, the hole is still there 15 hours later. Only this tenant so far. Their ingestion looks continuous on our side.",
      "slack", "query", symptoms=["dashboard-gaps", "stale-results"], started=95,
      extra={"channel": "#support-escalations", "tenant": "t-0917", "ticket": "SUP-20418"},
      outcome=outcome("2025-02-12 11:30",
                "During the 01:00 ingester rolling restart some querier sub-queries timed out and came back as empty results instead of errors; query-frontend stored those empty extents in the results cache, so every later query over that window reused them",
                "Results cache entries written during the ingester restart held empty extents for t-0917. Restarting query-frontend did nothing because the cache lives in memcached, outside the pods. Raising the tenant's results_cache_generation in runtime overrides made all its old entries miss, and the dashboard was correct on the next load. The querier bug (timeout returned as an empty result) is QRY-311.",
                [M("restart the query-frontend deployment", "failed"),
                 M("raise results_cache_generation for t-0917 in runtime overrides", "succeeded")],
                "oncall-priya"))

page("g1", "GROWTH", "2025-02-13 10:05", "metrics-ingester", "MetricsIngesterMemoryHigh", "warning",
     "metrics-ingester", "metrics", "metrics",
     "Ingester memory at 88% of limit (avg over 24 pods); max tenant share of in-memory series 6%",
     symptoms=["memory-pressure"], pending=15,
     outcome=outcome("2025-02-13 11:20",
               "Organic growth: in-memory series up 19% in two weeks after the February onboarding cohort, spread over about 900 tenants; ingesters were still sized for the December peak",
               "Memory rose evenly on all 24 ingesters; no tenant above 6% of series. Added two ingesters per zone (24 -> 30); after the ring settled memory was at 71% and the alert cleared.",
               [R("ingester-scale-out", "succeeded", "8 -> 10 ingesters per zone")],
               "oncall-kenji"))

page("r1", "RULE", "2025-02-17 07:22", "rule-evaluator", "RuleEvaluatorMissedIterations", "error",
     "rule-evaluator-2", "alerting", "alerting",
     "412 missed rule group iterations in 5m on rule-evaluator-2; slowest group t-1187/slo-burn-rates 94s (interval 60s)",
     symptoms=["missed-evaluations"], pending=10,
     outcome=outcome("2025-02-17 09:40",
               "t-1187 loaded an SLO burn-rate group of 120 rules over sum by (path) of request histograms, about 600k series per evaluation; it held the evaluator's query slots so every tenant on shard 2 skipped iterations and their alerts fired late",
               "Added two rule-evaluator replicas first: shard 2 lost some groups but the heavy group stayed on one replica and kept blocking it. After the tenant agreed, the group was disabled through the ruler API and they got a rewritten version over pre-aggregated recordings. Missed iterations went to zero in 3 minutes.",
               [M("add two rule-evaluator replicas", "partial"),
                M("disable group t-1187/slo-burn-rates through the ruler API with the tenant's consent", "succeeded")],
               "oncall-ruth"))

page("m1", "COMPACT", "2025-02-21 05:48", "metrics-compactor",
     "MetricsCompactorHasNotSuccessfullyRunCompaction", "warning", "metrics-compactor-0", "metrics",
     "metrics", "metrics-compactor-0 last successful compaction 26h ago",
     symptoms=["compaction-halted"], pending=20,
     outcome=outcome("2025-02-21 09:15",
               "t-0452 backfilled 30 days through the bulk import API; the imported blocks overlapped blocks the ingesters had already uploaded, compactor-0 stopped on 'overlapping sources detected' for that tenant and its whole job queue halted, so other tenants' blocks piled up too",
               "Restarting compactor-0 bought four minutes before it halted on the same block. The two overlapping blocks were marked no-compact with the bucket tool and compaction resumed; the backlog was gone by the next evening. Written down as compactor-mark-block-no-compact.",
               [M("restart metrics-compactor-0", "failed"),
                M("mark the two overlapping t-0452 blocks no-compact with the bucket tool", "succeeded")],
               "oncall-kenji"))

human("s1", "SAML", "2025-02-25 08:31", "web-ui", "high",
      "SUP-20577: nobody in our company can log in with Okta",
      "Since about 07:30 UTC every user at Hollis Freight gets 'Login failed, contact your administrator' after authenticating at Okta. Password login is disabled for our org so we are locked out of all dashboards in the middle of a release. We haven't changed anything on the Okta app as far as I know. Please escalate.",
      "support", "identity", symptoms=["login-failure"],
      errs=["Login failed, contact your administrator"], started=60,
      extra={"ticket": "SUP-20577", "tenant": "t-5112", "customerTier": "enterprise"},
      outcome=outcome("2025-02-25 10:05",
                "The customer's Okta admin rotated the app's SAML signing certificate at 07:28; Keycloak realm t-5112 still held the old certificate and rejected every assertion with 'Invalid signature'",
                "auth-service logs showed signature validation failures for realm t-5112 only. Fetched the new IdP metadata from Okta and updated the identity provider in the realm with kcadm; logins worked at 10:00. Written down as keycloak-reimport-idp-metadata.",
                [M("fetch the new Okta metadata and update the identity provider in realm t-5112 with kcadm", "succeeded")],
                "oncall-oona"))

page("k2", "KDISK", "2025-03-03 14:17", "ingest-gateway", "IngestGatewayHighErrorRate", "critical",
     "ingest-gateway", "edge", "ingest",
     "ingest-gateway 5xx ratio 7.9% over 5m on /v1/logs, /v1/traces",
     symptoms=["5xx"], pending=6,
     dep=deploy("ingest-gateway-2025.03.03-1", "2025.03.03-1", 52),
     outcome=outcome("2025-03-03 16:10",
               "kafka-broker-5's data disk reached 100% after t-8044 replayed a day of buffered traces; the broker's log dir went offline, its partitions lost their in-sync replicas and ingest-gateway's producers got NOT_ENOUGH_REPLICAS and answered 503",
               "The ingest-gateway release from 13:25 looked guilty and was rolled back first; the error ratio did not move. Gateway logs showed NOT_ENOUGH_REPLICAS from the producer, pointing at Kafka. traces-raw retention was lowered to 8 h, broker 5 restarted its log dir and errors stopped at 16:00. The release was redeployed the next day without trouble.",
               [R("helm-rollback-release", "failed", "ingest-gateway 2025.03.03-1 -> 2025.02.24-2"),
                R("kafka-vm-lower-topic-retention", "succeeded", "traces-raw 48 h -> 8 h, broker 5")],
               "oncall-tobias"))

page("card1", "CARD", "2025-03-07 02:55", "metrics-ingester", "MetricsIngesterOOMKilled", "critical",
     "metrics-ingester-zone-b-7", "metrics", "metrics",
     "5 ingester OOM kills in 30m (zone-b-7, zone-a-3, zone-c-9 and 2 more); top tenant t-3307 at 41% of in-memory series",
     firing=5, symptoms=["oom-kill"], pending=5,
     outcome=outcome("2025-03-07 05:20",
               "t-3307 started sending an OpenTelemetry attribute http.request.id that their exporter turned into a metric label; the series of their shuffle shard grew fourfold in 40 minutes and the shard's ingesters OOM-looped",
               "The OOMs were confined to the 6 ingesters of t-3307's shuffle shard. Adding ingesters (30 -> 36) did nothing: the new pods joined the ring but the tenant's shard kept its pods and they kept dying. Setting max_global_series_per_user to 2.5M for t-3307 in runtime overrides stopped the OOMs within 5 minutes; the tenant dropped the label the next day. Written down as ingester-cap-tenant-series.",
               [R("ingester-scale-out", "failed", "10 -> 12 ingesters per zone"),
                M("set max_global_series_per_user=2500000 for t-3307 in runtime overrides", "succeeded")],
               "oncall-anjali"))

human("c2", "CACHE", "2025-03-11 11:20", "query-frontend", "medium",
      "SLO panel for t-2650 stuck at 0 for 14:00-14:20 yesterday, live data fine",
      "Support passed this on: the customer's error budget panel shows no requests from 14:00 to 14:20 UTC on 10 March, which wrecked their budget number. The same query through the API with Cache-Control: no-store returns the real values. There was an ingester rollout at 14:05. Two other tenants opened tickets about holes on the same afternoon.",
      "slack", "query", symptoms=["dashboard-gaps", "stale-results"], started=80,
      extra={"channel": "#support-escalations", "tenant": "t-2650"},
      outcome=outcome("2025-03-13 09:00",
                "Same mechanism as ob-0002: during the ingester rollout queriers returned empty results on timeouts and the results cache kept them",
                "Confirmed with a cached versus uncached comparison for t-2650, t-1408 and t-7731. Raised results_cache_generation for all three; the panels were right on the next load. QRY-311 (timeouts returned as empty results) is still open, so this is now written down as results-cache-drop-tenant-entries.",
                [M("raise results_cache_generation for t-2650, t-1408 and t-7731", "succeeded")],
                "oncall-priya"))

page("a1", "STORM", "2025-03-18 19:44", "notification-dispatcher", "NotificationQueueBacklog",
     "critical", "notification-dispatcher", "alerting", "alerting",
     "Dispatch queue depth 48,210, oldest message 11m; firing tenants 1,930; receiver p99 0.3s",
     symptoms=["notification-backlog"], pending=5,
     outcome=outcome("2025-03-18 20:30",
               "A cloud provider's us-east-1 networking event made about 1,900 tenants' own alerts fire within a few minutes; the 12 dispatcher workers could not keep up with the volume while receivers answered quickly",
               "Pure volume: receivers answered in 300 ms, no timeouts. Scaled the dispatcher from 12 to 40 workers; the backlog drained in 9 minutes.",
               [R("dispatcher-scale-workers", "succeeded", "12 -> 40 workers")],
               "oncall-ruth"))

human("rg1", "RING", "2025-03-21 09:10", "ingest-gateway", "high",
      "Remote write errors ~4% since zone-c node pool upgrade",
      "Since the zone-c node pool went to the new AMI (started 08:35) ingest-gateway returns 500 on roughly 4% of /api/v1/push. Customers' Prometheus servers are retrying so no loss yet, but their queues grow. All ingester pods are Running and Ready. The gateway logs are full of the line below.",
      "slack", "metrics", symptoms=["5xx", "write-errors"],
      errs=["push error: at least 2 live replicas required, could only find 1 - unhealthy instances: 10.42.17.8:9095,10.42.19.33:9095"],
      started=30, extra={"channel": "#inc-metrics"},
      dep=deploy("nodepool-zone-c-ami-2025-03", "ami-0b3f9e1c", 35),
      outcome=outcome("2025-03-21 11:00",
                "The zone-c ingesters were replaced under new names; the old instances were killed before their LEAVING heartbeat and stayed in the ring as unhealthy entries, so series that hashed to them could not reach write quorum",
                "Added ingesters first: the new instances took tokens but the three dead entries still counted as replicas and the errors stayed at 4%. Removing the three dead entries from the ring on the ring status page stopped the errors at once. Written down as ingester-forget-ring-member.",
                [R("ingester-scale-out", "failed", "+1 ingester per zone, removed again afterwards"),
                 M("remove the three unhealthy entries on the ingester ring status page", "succeeded")],
                "oncall-felix"))

page("s2", "SAML", "2025-03-25 13:02", "auth-service", "SSOLoginFailureRatio", "critical",
     "auth-service", "auth", "identity",
     "SAML login failure ratio 96% for realm t-5530 over 15m (212 attempts)",
     symptoms=["login-failure"], pending=15,
     outcome=outcome("2025-03-25 13:50",
               "t-5530's Azure AD enterprise app rolled over to its new signing certificate; the Keycloak realm still trusted the old one",
               "Realm t-5530 rejected every assertion. Re-imported the IdP metadata from Azure AD; logins succeeded from 13:46.",
               [R("keycloak-reimport-idp-metadata", "succeeded", "realm t-5530")],
               "oncall-oona"))

page("k3", "KDISK", "2025-03-31 22:15", "log-indexer", "LogIndexerConsumerLag", "error",
     "log-indexer", "logs", "logs",
     "log-indexer consumer group lag 3.4M records on logs-raw (growing 40k/s)",
     symptoms=["consumer-lag"], pending=10,
     outcome=outcome("2025-04-01 00:40",
               "kafka-broker-1's log dir filled after t-6020 logged every ingress request at debug during a load test; 40 logs-raw partitions went offline and the log-indexer consumers assigned to them stalled",
               "The indexer itself was healthy; its fetches for 40 partitions failed with NOT_LEADER_OR_FOLLOWER. Broker 1's disk was full. Lowered logs-raw retention to 6 h, the broker recovered its log dir and lag was gone at 00:30.",
               [R("kafka-vm-lower-topic-retention", "succeeded", "logs-raw 72 h -> 6 h, broker 1")],
               "oncall-dmitri"))

human("w1", "WEBHOOK", "2025-04-03 15:30", "notification-dispatcher", "critical",
      "SUP-21102 Alerts reaching PagerDuty 25-40 min late",
      "Hi, our on-call got paged 38 minutes after our 'CheckoutErrorRate' alert went firing in your UI (alert history shows firing at 13:52, the PagerDuty incident was created at 14:30). Same for two other alerts this afternoon. Our rules and routing haven't changed. This is serious for us, we rely on you for paging.",
      "support", "alerting", symptoms=["alert-delay"], started=100,
      extra={"ticket": "SUP-21102", "tenant": "t-3915", "customerTier": "enterprise"},
      outcome=outcome("2025-04-08 10:15",
                "t-7702's webhook receiver (an internal hook behind their VPN gateway) started timing out at 30 s; with 3 retries each, its notifications held most of the 16 shared workers, so every tenant's deliveries queued behind it",
                "Not a volume problem: only 80 tenants were firing. Adding workers (16 -> 48) filled the new workers with the same receiver's retries within minutes and the backlog kept growing. Disabling t-7702's webhook receiver (customer informed) freed the workers and the queue drained in 4 minutes. Written up after the review on 8 April; a slow lane for such receivers is being written down as dispatcher-isolate-slow-webhook.",
                [R("dispatcher-scale-workers", "failed", "16 -> 48 workers"),
                 M("disable t-7702's webhook receiver and inform the customer", "succeeded")],
                "oncall-sol"))

human("card2", "CARD", "2025-04-07 04:12", "metrics-ingester", "critical",
      "zone-a ingesters OOM looping, t-6120 series went from 2.1M to 9.8M",
      "Paged for ingester restarts at 03:50. Six pods in t-6120's shard are crash looping with OOMKilled, the rest of the fleet sits around 60% memory. The tenant pushed a kube-state-metrics config at 03:30 that exports pod labels as metric labels; their series went 2.1M -> 9.8M in 20 minutes. Other tenants on the same pods get write errors.",
      "slack", "metrics", symptoms=["oom-kill", "high-cardinality", "write-errors"], started=25,
      extra={"channel": "#inc-metrics", "tenant": "t-6120"},
      outcome=outcome("2025-04-07 05:00",
                "t-6120's kube-state-metrics started exporting every pod label as a metric label; their shard's ingesters ran out of memory",
                "Limited t-6120 to 3M series; the shard's ingesters stopped crashing within 4 minutes and other tenants' writes recovered. The tenant reverted their exporter config by 09:00.",
                [R("ingester-cap-tenant-series", "succeeded", "t-6120 limit 3M")],
                "oncall-anjali"))

page("m2", "COMPACT", "2025-04-12 06:25", "metrics-compactor", "MetricsCompactorHalted", "error",
     "metrics-compactor-1", "metrics", "metrics",
     "metrics-compactor-1 halted; bucket block count 18,430 (+2.1k/day)",
     symptoms=["compaction-halted"], pending=5,
     outcome=outcome("2025-04-12 08:00",
               "t-3371 enabled out-of-order ingestion with a 2 h window; ingesters uploaded blocks overlapping already-compacted ones and compactor-1 halted",
               "Found four overlapping blocks for t-3371, marked them no-compact and restarted the compactor; it caught up by the afternoon.",
               [R("compactor-mark-block-no-compact", "succeeded", "4 blocks of t-3371")],
               "oncall-felix"))

page("g2", "GROWTH", "2025-04-15 10:50", "metrics-ingester", "MetricsIngesterMemoryHigh", "warning",
     "metrics-ingester", "metrics", "metrics",
     "Ingester memory at 85% of limit (avg over 36 pods); max tenant share of in-memory series 5%",
     symptoms=["memory-pressure"], pending=15,
     outcome=outcome("2025-04-15 12:40",
               "Organic growth after the quarter start: series up 14% in three weeks across about 1,100 tenants, no tenant above 5%",
               "With the memory-pressure contradiction open, the on-call first limited the largest tenant (5% of series) to see whether one tenant drove it: memory fell by 1% and the alert stayed. Adding ingesters (12 -> 14 per zone) brought memory to 73%.",
               [R("ingester-cap-tenant-series", "failed", "t-0201 limit 1.2M, 5% share"),
                R("ingester-scale-out", "succeeded", "12 -> 14 ingesters per zone")],
               "oncall-kenji"))

human("c3", "CACHE", "2025-04-18 09:35", "web-ui", "medium",
      "SUP-21388 gap in checkout latency graph that wasn't there live",
      "We watched our checkout latency panel live this morning and it was fine. Looking back at it now there is a hole from 09:10 to 09:25 UTC and the p99 line drops to nothing. Our Prometheus didn't restart and its local data has no gap. Screenshot attached. Are we losing data?",
      "support", "query", symptoms=["dashboard-gaps"], started=20,
      extra={"ticket": "SUP-21388", "tenant": "t-4471"},
      dep=deploy("query-frontend-2025.04.18-1", "2025.04.18-1", 40),
      outcome=outcome("2025-04-18 11:30",
                "Zone-a ingesters restarted at 09:10 and the querier timeout path again returned empty extents, which the results cache kept for t-4471; the query-frontend release at 08:55 had nothing to do with it",
                "The query-frontend release 40 minutes earlier was rolled back first; the gap stayed because the bad entries live in memcached. Raising t-4471's cache generation fixed the panel at once. The release went back out at noon.",
                [R("helm-rollback-release", "failed", "query-frontend 2025.04.18-1 -> 2025.04.09-3"),
                 R("results-cache-drop-tenant-entries", "succeeded", "t-4471")],
                "oncall-priya"))

human("r2", "RULE", "2025-04-22 18:05", "rule-evaluator", "high",
      "SUP-21460: 1-minute alert rule fires 9 minutes late",
      "Our HighErrorRate rule (for: 1m) fired at 17:41 although the error ratio crossed the threshold at 17:31 according to the same query in Explore. The rule health page in your UI says 'last evaluation 6m ago', which seems wrong for an evaluation interval of 30s.",
      "support", "alerting", symptoms=["alert-delay", "missed-evaluations"], started=34,
      extra={"ticket": "SUP-21460", "tenant": "t-2977"},
      outcome=outcome("2025-04-22 20:30",
                "t-8312 added recording rules over a 40k-pod cluster to a group with a 30 s interval; each iteration took 140 s and starved rule-evaluator shard 0, where t-2977's rules also run",
                "The customer's own rules were fine; shard 0 was behind for everyone. The slowest group was t-8312/k8s-recordings. Disabled it through the ruler API after reaching the tenant and the shard caught up within two minutes. Second time this year, now written down as rules-pause-tenant-group.",
                [M("disable group t-8312/k8s-recordings through the ruler API after reaching the tenant", "succeeded")],
                "oncall-sol"))

human("s3", "SAML", "2025-04-25 07:58", "web-ui", "high",
      "SUP-21512 SSO sends us back to the login page with 'Authentication failed'",
      "Users at Ferncastle Labs get sent back to your login page with 'Authentication failed' after signing in with Azure AD. Started some time this morning, we noticed at 07:40 UTC. A few colleagues who logged in yesterday can still work.",
      "support", "identity", symptoms=["login-failure"], errs=["Authentication failed"],
      started=40, extra={"ticket": "SUP-21512", "tenant": "t-6388"},
      outcome=outcome("2025-04-25 08:45",
                "Azure AD automatic certificate rollover for t-6388's enterprise app; the realm still held the previous signing certificate",
                "Same pattern as the Okta and Azure AD cases before. Re-imported the metadata into realm t-6388; sign-ins worked at 08:40.",
                [R("keycloak-reimport-idp-metadata", "succeeded", "realm t-6388")],
                "oncall-oona"))

page("rg2", "RING", "2025-05-02 01:40", "metrics-ingester", "IngesterRingMembersUnhealthy", "error",
     "metrics-ingester", "metrics", "metrics",
     "2 ingester ring members unhealthy for >10m; write quorum failures 3.1% of pushes",
     firing=2, symptoms=["ring-unhealthy"], pending=10,
     outcome=outcome("2025-05-02 02:30",
               "Two spot nodes in zone-b were reclaimed; their ingesters were killed without leaving the ring and their replacements registered under new names",
               "Removed the two dead entries from the ring; write errors stopped at 02:20.",
               [R("ingester-forget-ring-member", "succeeded", "2 entries, zone-b")],
               "oncall-felix"))

human("k4", "KDISK", "2025-05-06 14:22", "otel-collector", "high",
      "SUP-21733 OTLP exporter getting 503s, collectors dropping spans",
      "Since ~14:05 UTC our gateway collectors (otelcol-contrib 0.98) fail to export to your endpoint with 503 and the sending queue is full, so they are dropping data. Metrics remote write from the same collectors still works. Nothing changed in our config today.",
      "support", "ingest", symptoms=["5xx", "ingest-drop"],
      errs=["Exporting failed. Dropping data. error: request to https://otlp.us.lanternfish.example/v1/traces responded with HTTP Status Code 503",
            "sending queue is full"],
      started=17, extra={"ticket": "SUP-21733", "tenant": "t-1290"},
      outcome=outcome("2025-05-06 15:30",
                "kafka-broker-2's data disk filled with traces-raw after t-5581 turned on 100% trace sampling; traces and logs produce requests failed with NOT_ENOUGH_REPLICAS and ingest-gateway answered 503 (metrics do not go through Kafka)",
                "The customer's collectors were fine; every tenant sending traces through us-east-1 saw 503s. Lowered traces-raw retention on the VM brokers and the partitions were back in sync at 15:20.",
                [R("kafka-vm-lower-topic-retention", "succeeded", "traces-raw 48 h -> 8 h, broker 2")],
                "oncall-tobias"))

page("w2", "WEBHOOK", "2025-05-09 20:15", "notification-dispatcher", "NotificationDispatchLatencyHigh",
     "error", "notification-dispatcher", "alerting", "alerting",
     "p99 dispatch latency 14m; webhook timeouts 2,300/5m, 91% to one receiver host",
     symptoms=["alert-delay"], pending=10,
     outcome=outcome("2025-05-09 20:50",
               "t-2260's webhook receiver (a self-hosted chat relay) hung on every request until the 30 s timeout and held the shared workers",
               "In-flight requests were 91% to one host. Moved that host to the slow lane; dispatch latency was back under 5 s within 3 minutes and the tenant was told.",
               [R("dispatcher-isolate-slow-webhook", "succeeded", "hooks.t-2260 relay")],
               "oncall-ruth"))

page("card3", "CARD", "2025-05-12 03:30", "metrics-ingester", "MetricsIngesterMemoryHigh", "warning",
     "metrics-ingester", "metrics", "metrics",
     "Ingester memory at 93% of limit on 6 of 42 pods (zone-b); top tenant t-2044 at 37% of in-memory series",
     firing=6, symptoms=["memory-pressure"], pending=15,
     outcome=outcome("2025-05-12 04:15",
               "t-2044 shipped a service that put a customer id into a histogram label; their series jumped and their shard's ingesters neared the memory limit",
               "Only the six ingesters of t-2044's shard were hot. Limited the tenant to 4M series; memory on those pods fell to 70%.",
               [R("ingester-cap-tenant-series", "succeeded", "t-2044 limit 4M")],
               "oncall-anjali"))

human("m3", "COMPACT", "2025-05-14 11:45", "query-frontend", "medium",
      "30-day queries for t-8810 take 40s+, were 3s last week",
      "Customer success flagged that t-8810's capacity dashboards (30 day range) time out in the UI. Query stats show the querier touching about 41k blocks for the one tenant, ten times what we'd expect. Results cache hit ratio is normal and short ranges are fast.",
      "slack", "query", symptoms=["slow-queries", "query-timeout"], started=90,
      extra={"channel": "#team-query", "tenant": "t-8810"},
      outcome=outcome("2025-05-14 14:20",
                "metrics-compactor-2 had been halted for three days on overlapping blocks from t-8810's backfill; the warning page had been acknowledged and forgotten, so the tenant's blocks were never merged",
                "The query side was fine: uncompacted blocks made long-range queries open tens of thousands of blocks. Marked the overlapping blocks no-compact; the compactor caught up overnight and 30-day queries were back to 4 s.",
                [R("compactor-mark-block-no-compact", "succeeded", "3 blocks of t-8810")],
                "oncall-felix"))

human("n1", "X-TRACEBIG", "2025-05-16 16:10", "query-frontend", "medium",
      "SUP-21901 trace search times out for our org",
      "Trace search in Explore gives 'context deadline exceeded' for any query over more than 15 minutes. Since yesterday afternoon. Metrics and logs queries are fine. We rolled out a new version of our batch service yesterday if that matters.",
      "support", "query", symptoms=["query-timeout"], errs=["context deadline exceeded"],
      started=70, extra={"ticket": "SUP-21901", "tenant": "t-5581"},
      outcome=outcome("2025-05-20 10:00",
                "t-5581's new batch service emits one trace per job run with about 2M spans (a span per processed record); trace-store queriers ran out of memory assembling those traces and every search for the tenant hit the 30 s deadline",
                "Raising the tenant's results cache generation changed nothing (trace searches were not cached). trace-store querier pods were OOM-restarting. Set max_bytes_per_trace to 50 MB for t-5581 in trace-store overrides and restarted the queriers; searches returned in 2 s. The customer changed their instrumentation to one span per batch.",
                [R("results-cache-drop-tenant-entries", "failed", "t-5581"),
                 M("set max_bytes_per_trace=50MB for t-5581 in trace-store overrides and restart the trace-store queriers", "succeeded")],
                "oncall-priya"))

page("a2", "STORM", "2025-05-19 21:30", "notification-dispatcher", "NotificationQueueBacklog",
     "critical", "notification-dispatcher", "alerting", "alerting",
     "Dispatch queue depth 61,400, oldest message 14m; firing tenants 2,610; receiver p99 0.3s",
     symptoms=["notification-backlog"], pending=5,
     outcome=outcome("2025-05-19 22:20",
               "A large CDN provider had a 25-minute outage; 2,600 tenants' alerts fired at once and the volume outran the dispatcher",
               "Remembering the April case, the on-call first moved the busiest receiver host to the slow lane: no change, that host held 4% of in-flight and answered in 200 ms. Adding workers (24 -> 64) drained the queue in 11 minutes.",
               [R("dispatcher-isolate-slow-webhook", "failed", "busiest host, 4% of in-flight"),
                R("dispatcher-scale-workers", "succeeded", "24 -> 64 workers")],
               "oncall-sol"))

page("r3", "RULE", "2025-05-23 06:55", "rule-evaluator", "RuleEvaluatorMissedIterations", "error",
     "rule-evaluator-0", "alerting", "alerting",
     "233 missed rule group iterations in 5m on rule-evaluator-0; slowest group t-4410/latency-slos 88s (interval 60s)",
     symptoms=["missed-evaluations"], pending=10,
     outcome=outcome("2025-05-23 07:30",
               "t-4410 imported a community SLO rule pack that computes quantiles over raw histograms for every endpoint",
               "Paused the group, shard 0 caught up in a minute, tenant informed with a suggested rewrite.",
               [R("rules-pause-tenant-group", "succeeded", "t-4410/latency-slos")],
               "oncall-ruth"))

human("c4", "CACHE", "2025-05-27 10:40", "query-frontend", "medium",
      "Three tenants report SLO panels dipping to 0 for 10:40-10:55",
      "SUP-22010, SUP-22013 and SUP-22019, all us-east-1: panels show a drop to zero for 10:40-10:55 this morning that isn't in their source data. zone-b ingesters were rolling at 10:40 for the memory limit change. Querying with a slightly different range gives the right values.",
      "slack", "query", symptoms=["dashboard-gaps", "stale-results"], started=40,
      extra={"channel": "#support-escalations"},
      outcome=outcome("2025-05-27 11:25",
                "Another ingester rollout, another set of empty extents cached (QRY-311 still open)",
                "Compared cached and uncached results for the three tenants, raised their cache generations, panels fixed.",
                [R("results-cache-drop-tenant-entries", "succeeded", "t-3044, t-7731, t-0177")],
                "oncall-priya"))

page("s4", "SAML", "2025-05-30 09:12", "auth-service", "SSOLoginFailureRatio", "critical",
     "auth-service", "auth", "identity",
     "SAML login failure ratio 100% for realm t-9034 over 10m (88 attempts)",
     region="euc1", symptoms=["login-failure"], pending=10,
     outcome=outcome("2025-05-30 09:55",
               "t-9034 moved their Okta org to a new signing certificate during their own maintenance window",
               "Realm t-9034 in eu-central-1 rejected all assertions. Re-imported the metadata; logins back at 09:50.",
               [R("keycloak-reimport-idp-metadata", "succeeded", "realm t-9034, eu-central-1")],
               "oncall-oona"))

page("g3", "GROWTH", "2025-06-03 12:20", "metrics-ingester", "MetricsIngesterMemoryHigh", "warning",
     "metrics-ingester", "metrics", "metrics",
     "Ingester memory at 86% of limit (avg over 18 pods); max tenant share of in-memory series 7%",
     region="euc1", symptoms=["memory-pressure"], pending=15,
     outcome=outcome("2025-06-03 13:30",
               "eu-central-1 growth after several EU customers moved their metrics from us-east-1; spread over about 300 tenants",
               "Tenant concentration check passed (top tenant 7%). Added two ingesters per zone (18 -> 24); memory at 68% afterwards.",
               [R("ingester-scale-out", "succeeded", "6 -> 8 ingesters per zone, eu-central-1")],
               "oncall-kenji"))

human("rg3", "RING", "2025-06-09 08:05", "ingest-gateway", "high",
      "euc1 metrics push failing for a few % of requests after node replacement",
      "After the zone-a node replacement overnight about 4% of remote-write requests in euc1 get 500s. Looks like the gateway can't find enough healthy ingesters for some series. All ingester pods are up.",
      "slack", "metrics", region="euc1", symptoms=["5xx", "write-errors"],
      errs=["too many unhealthy instances in the ring"], started=45,
      extra={"channel": "#inc-metrics"},
      outcome=outcome("2025-06-09 10:10",
                "The zone-a node replacement in eu-central-1 killed three ingesters before they left the ring",
                "Three dead entries in the ingester ring; removed them, push errors stopped at 10:00.",
                [R("ingester-forget-ring-member", "succeeded", "3 entries, zone-a, eu-central-1")],
                "oncall-felix"))

page("rg3b", "RING", "2025-06-09 08:30", "metrics-ingester", "IngesterRingMembersUnhealthy", "error",
     "metrics-ingester", "metrics", "metrics",
     "3 ingester ring members unhealthy for >10m; write quorum failures 4.2% of pushes",
     region="euc1", firing=3, symptoms=["ring-unhealthy"], pending=10, dup_of="rg3",
     outcome=outcome("2025-06-09 10:20",
               "Re-page of ob-0032: dead zone-a ingester entries after the node replacement",
               "Re-page of ob-0032, cleared by the same fix.",
               [R("ingester-forget-ring-member", "succeeded", "covered by ob-0032")],
               "oncall-felix"))

human("w3", "WEBHOOK", "2025-06-17 15:05", "notification-dispatcher", "high",
      "Slack and webhook notifications ~20 min late for many tenants",
      "Customer success reports Slack notifications 15-20 minutes late since 14:40. Dispatcher in-flight is almost all POSTs to one host, hooks.bramblecorp.example, each waiting out the 30s timeout. Only a few dozen tenants have firing alerts right now, so it's not volume.",
      "slack", "alerting", symptoms=["alert-delay", "webhook-timeout", "notification-backlog"],
      started=25, extra={"channel": "#inc-alerting"},
      outcome=outcome("2025-06-17 15:40",
                "t-0614's webhook endpoint hooks.bramblecorp.example hung after their own deploy; its requests held the shared workers",
                "Moved hooks.bramblecorp.example to the slow lane, delays gone in 4 minutes, tenant informed.",
                [R("dispatcher-isolate-slow-webhook", "succeeded", "hooks.bramblecorp.example")],
                "oncall-sol"))

page("k5", "KDISK", "2025-06-24 02:50", "kafka", "KafkaUnderReplicatedPartitions", "critical",
     "obs-kafka-broker-2", "kafka", "streaming",
     "Under-replicated partitions 212; log dir usage 96% on data-0-obs-kafka-broker-2",
     symptoms=["under-replicated"], pending=8,
     outcome=outcome("2025-06-24 04:30",
               "t-4120 started sending logs from a new region at three times their usual rate; the logs-raw partitions led by broker 2 filled its 2 TiB volume within the 24 h local retention before tiering",
               "First attempt followed the old VM procedure: there are no broker VMs since the Strimzi move and kafka-configs on 3.7 has no --zookeeper option, so nothing changed. Grew the node pool's volumes from 2 to 3 TiB online and lowered logs-raw local retention to 6 h (older segments are served from the object store); replicas back in sync at 04:20.",
               [R("kafka-vm-lower-topic-retention", "failed", "no broker VMs, --zookeeper rejected"),
                R("strimzi-expand-broker-volume", "succeeded", "2 -> 3 TiB, logs-raw local retention 6 h")],
               "oncall-dmitri"))

page("m4", "COMPACT", "2025-06-27 04:15", "metrics-compactor",
     "MetricsCompactorHasNotSuccessfullyRunCompaction", "warning", "metrics-compactor-2", "metrics",
     "metrics", "metrics-compactor-2 last successful compaction 31h ago; tenants skipped 1",
     symptoms=["compaction-halted"], pending=20,
     outcome=outcome("2025-06-27 07:50",
               "t-0452 backfilled again (another 60 days) without the import tool's overlap check",
               "Two overlapping blocks, marked no-compact, compactor-2 resumed. Asked the tenant to use the overlap check next time.",
               [R("compactor-mark-block-no-compact", "succeeded", "2 blocks of t-0452")],
               "oncall-kenji"))

human("n2", "X-BODYLIMIT", "2025-07-01 13:10", "ingest-gateway", "high",
      "SUP-23340 HTTP 413 from OTLP endpoint since lunchtime",
      "Our collectors in eu-central-1 started getting '413 Request Entity Too Large' around 11:55 UTC. We batch at 8192 spans, payloads are 5-7 MB compressed, same as for the last year. Some smaller services still get through. Is there a new limit?",
      "support", "ingest", region="euc1", symptoms=["4xx", "ingest-drop"],
      errs=["HTTP Status Code 413, Message=Request Entity Too Large"], started=75,
      extra={"ticket": "SUP-23340", "tenant": "t-7120"},
      dep=deploy("ingest-gateway-2025.07.01-2", "2025.07.01-2", 80),
      outcome=outcome("2025-07-01 14:20",
                "ingest-gateway 2025.07.01-2 shipped a new default max_request_body_size of 4 MiB (was 16 MiB) by mistake; batches above 4 MiB got 413",
                "Kafka and the ingesters were healthy; only large OTLP batches failed, from the moment of the release. Rolled ingest-gateway back in both regions; 413s stopped. The default was fixed in 2025.07.02-1.",
                [R("helm-rollback-release", "succeeded", "ingest-gateway 2025.07.01-2 -> 2025.06.23-1, both regions")],
                "oncall-tobias"))

human("card4", "CARD", "2025-07-04 07:45", "metrics-ingester", "critical",
      "t-1550 Istio metrics blew up their shard, zone-b ingesters OOMKilled",
      "t-1550 enabled Istio telemetry with per-pod destination labels this morning. Their in-memory series are now 33% of the cluster and the six ingesters of their shard OOM every few minutes. Fleet average memory is 58%. Writes from other tenants on those pods fail on and off.",
      "slack", "metrics", symptoms=["oom-kill", "high-cardinality"], started=30,
      extra={"channel": "#inc-metrics", "tenant": "t-1550"},
      outcome=outcome("2025-07-04 08:20",
                "t-1550's Istio telemetry added destination pod labels to every request metric",
                "Limited t-1550 to 5M series; OOMs stopped. The tenant dropped the pod labels in their Telemetry resource that afternoon.",
                [R("ingester-cap-tenant-series", "succeeded", "t-1550 limit 5M")],
                "oncall-anjali"))

human("s5", "SAML", "2025-07-08 09:00", "web-ui", "high",
      "SUP-23498 Google SSO stopped working for our users",
      "We use Google Workspace as our SAML IdP. Since this morning every login attempt ends on your error page. Our IT renewed the SAML certificate in Google Admin yesterday because it was about to expire, could that be related? Users with existing sessions are fine.",
      "support", "identity", symptoms=["login-failure"], started=50,
      extra={"ticket": "SUP-23498", "tenant": "t-4930"},
      outcome=outcome("2025-07-08 09:40",
                "t-4930 renewed its Google Workspace SAML certificate; the realm held the old one",
                "Re-imported the Google metadata into realm t-4930; logins work.",
                [R("keycloak-reimport-idp-metadata", "succeeded", "realm t-4930")],
                "oncall-oona"))

page("a3", "STORM", "2025-07-11 18:20", "notification-dispatcher", "NotificationQueueBacklog",
     "critical", "notification-dispatcher", "alerting", "alerting",
     "Dispatch queue depth 31,870, oldest message 8m; firing tenants 1,240; receiver p99 0.4s",
     region="euc1", symptoms=["notification-backlog"], pending=5,
     outcome=outcome("2025-07-11 18:45",
               "A European hosting provider lost a data centre for 30 minutes; 1,240 tenants' alerts fired together",
               "Receiver concentration check passed (top host 3%). Added workers 12 -> 32 in eu-central-1; queue drained in 7 minutes.",
               [R("dispatcher-scale-workers", "succeeded", "12 -> 32 workers, eu-central-1")],
               "oncall-ruth"))

page("r4", "RULE", "2025-07-15 05:35", "rule-evaluator", "RuleEvaluatorMissedIterations", "error",
     "rule-evaluator-3", "alerting", "alerting",
     "178 missed rule group iterations in 5m on rule-evaluator-3; slowest group t-6061/histogram-recordings 131s (interval 60s)",
     symptoms=["missed-evaluations"], pending=10,
     outcome=outcome("2025-07-15 06:10",
               "t-6061 added a recording rule over a histogram with 400k series per evaluation",
               "Paused t-6061/histogram-recordings; shard 3 caught up, tenant informed.",
               [R("rules-pause-tenant-group", "succeeded", "t-6061/histogram-recordings")],
               "oncall-sol"))

page("c5", "CACHE", "2025-07-18 11:25", "query-frontend", "ResultsCacheCanaryMismatch", "warning",
     "query-frontend", "query", "query",
     "Cached vs uncached canary results differ for 4 tenants (max sample loss 100% in a 15m window)",
     symptoms=["stale-results"], pending=15,
     outcome=outcome("2025-07-18 12:05",
               "Empty extents cached during the 10:50 ingester rollout for four tenants",
               "The canary added after the spring cases caught it before customers did. Raised the four tenants' cache generations.",
               [R("results-cache-drop-tenant-entries", "succeeded", "4 tenants")],
               "oncall-priya"))

page("k6", "KDISK", "2025-07-22 01:05", "ingest-gateway", "IngestGatewayHighErrorRate", "critical",
     "ingest-gateway", "edge", "ingest",
     "ingest-gateway 5xx ratio 5.2% over 5m on /v1/logs",
     symptoms=["5xx"], pending=6,
     outcome=outcome("2025-07-22 03:40",
               "t-7310 re-sent three days of logs from an archive after their own outage; broker 0's volume filled and logs-raw produce requests failed with NOT_ENOUGH_REPLICAS",
               "Broker obs-kafka-broker-0 at 100%. Grew the node pool volumes to 4 TiB and lowered logs-raw local retention; 503s stopped at 03:30.",
               [R("strimzi-expand-broker-volume", "succeeded", "3 -> 4 TiB, logs-raw local retention 6 h")],
               "oncall-tobias"))

page("k6b", "KDISK", "2025-07-22 01:28", "log-indexer", "LogIndexerConsumerLag", "error",
     "log-indexer", "logs", "logs",
     "log-indexer consumer group lag 1.9M records on logs-raw (growing 22k/s)",
     symptoms=["consumer-lag"], pending=10, dup_of="k6",
     outcome=outcome("2025-07-22 03:45",
               "Re-page of ob-0043: Kafka broker volume full",
               "Re-page of ob-0043; lag drained after the broker recovered.",
               [R("strimzi-expand-broker-volume", "succeeded", "covered by ob-0043")],
               "oncall-tobias"))

page("rg4", "RING", "2025-07-25 14:50", "ingest-gateway", "IngestGatewayHighErrorRate", "critical",
     "ingest-gateway", "edge", "ingest",
     "ingest-gateway 5xx ratio 3.8% over 5m on /api/v1/push",
     region="euc1", symptoms=["5xx"], pending=6,
     outcome=outcome("2025-07-25 15:30",
               "Node evictions in zone-c of eu-central-1 (kernel upgrade) left two dead ingester entries in the ring",
               "Kafka was healthy and only /api/v1/push failed: the gateway could not reach write quorum for series on two dead ring entries. Removed them; errors stopped.",
               [R("ingester-forget-ring-member", "succeeded", "2 entries, zone-c, eu-central-1")],
               "oncall-felix"))

human("g4", "GROWTH", "2025-07-29 10:15", "metrics-ingester", "medium",
      "euc1 ingesters creeping toward the memory limit after July onboarding",
      "Capacity check: euc1 ingesters average 84% of their memory limit, up from 70% a month ago. Growth is spread out, the top tenant holds 5% of in-memory series and no tenant grew more than 2x. We'll cross the alert threshold during tomorrow's peak.",
      "slack", "metrics", region="euc1", symptoms=["memory-pressure"], started=60,
      extra={"channel": "#team-metrics"},
      outcome=outcome("2025-07-29 11:30",
                "Organic growth in eu-central-1 across the July onboarding cohort",
                "Added ingesters 8 -> 10 per zone; memory at 69%.",
                [R("ingester-scale-out", "succeeded", "8 -> 10 per zone, eu-central-1")],
                "oncall-kenji"))

human("n3", "X-USAGEDUP", "2025-08-01 15:40", "usage-meter", "medium",
      "SUP-24102 July usage shows double the log volume we sent",
      "Our July usage page says 822 GB of logs ingested. Our collectors' own exporter metrics add up to about 410 GB, and June matched within 2%. Finance is asking before the invoice goes out. Can you check?",
      "support", "billing", symptoms=["billing-mismatch"], started=90,
      extra={"ticket": "SUP-24102", "tenant": "t-3380"},
      dep=deploy("usage-meter-2025.07.14-1", "2025.07.14-1", 25800),
      outcome=outcome("2025-08-07 12:00",
                "usage-meter 2025.07.14-1 lost the window dedup key when aggregation moved to a new state store; a consumer group rebalance during node maintenance on 19 July re-read six days of usage events and counted them again for 37 tenants",
                "Recomputed July usage for the 37 affected tenants from the raw usage-events topic and corrected their invoices before they went out; restored the dedup key in usage-meter 2025.08.04-1 and added a daily check that compares metered bytes with ingest-gateway's byte counters.",
                [M("recompute July usage for 37 tenants from the usage-events topic and correct the invoices", "succeeded"),
                 M("restore the window dedup key in usage-meter 2025.08.04-1", "succeeded")],
                "oncall-mira"))

page("w4", "WEBHOOK", "2025-08-06 19:55", "notification-dispatcher", "NotificationQueueBacklog",
     "critical", "notification-dispatcher", "alerting", "alerting",
     "Dispatch queue depth 9,870, oldest message 17m; firing tenants 61; receiver timeouts 3,900/5m",
     symptoms=["notification-backlog"], pending=5,
     outcome=outcome("2025-08-06 20:30",
               "t-5002's webhook receiver, an on-prem relay behind a broken firewall rule, dropped packets so every request waited the full 30 s",
               "Few firing tenants but a long queue: in-flight was 87% to one host. Moved it to the slow lane; queue drained in 5 minutes.",
               [R("dispatcher-isolate-slow-webhook", "succeeded", "relay.t-5002 host")],
               "oncall-sol"))

page("m5", "COMPACT", "2025-08-09 03:20", "metrics-compactor", "MetricsCompactorHalted", "error",
     "metrics-compactor-0", "metrics", "metrics",
     "metrics-compactor-0 halted; bucket block count 22,910 (+1.6k/day)",
     symptoms=["compaction-halted"], pending=5,
     outcome=outcome("2025-08-20 16:00",
               "t-2207 bulk-imported a year of data from their old Prometheus, overlapping their live blocks",
               "Fixed at the time by marking the overlapping blocks no-compact; this outcome was only written up after the August review.",
               [R("compactor-mark-block-no-compact", "succeeded", "5 blocks of t-2207")],
               "oncall-kenji"))

page("m6", "COMPACT", "2025-08-14 04:05", "metrics-compactor",
     "MetricsCompactorHasNotSuccessfullyRunCompaction", "warning", "metrics-compactor-1", "metrics",
     "metrics", "metrics-compactor-1 last successful compaction 28h ago; tenants skipped 2",
     region="euc1", symptoms=["compaction-halted"], pending=20,
     outcome=outcome("2025-08-14 06:00",
               "Two eu-central-1 tenants enabled out-of-order ingestion; the uploaded blocks overlapped compacted ones",
               "Marked the overlapping blocks of both tenants no-compact; compactor-1 resumed.",
               [R("compactor-mark-block-no-compact", "succeeded", "t-8123, t-0930")],
               "oncall-felix"))

page("card5", "CARD", "2025-08-17 02:10", "metrics-ingester", "MetricsIngesterOOMKilled", "critical",
     "metrics-ingester-zone-a-11", "metrics", "metrics",
     "3 ingester OOM kills in 15m; top tenant t-7781 at 46% of in-memory series",
     region="euc1", firing=3, symptoms=["oom-kill"], pending=5,
     outcome=outcome("2025-08-17 02:50",
               "t-7781 deployed a new exporter that labels every metric with a session id",
               "Limited t-7781 to 3M series; OOMs stopped.",
               [R("ingester-cap-tenant-series", "succeeded", "t-7781 limit 3M, eu-central-1")],
               "oncall-anjali"))

page("r5", "RULE", "2025-08-21 06:40", "rule-evaluator", "RuleEvaluatorMissedIterations", "error",
     "rule-evaluator-1", "alerting", "alerting",
     "96 missed rule group iterations in 5m on rule-evaluator-1; slowest group t-0388/capacity-forecast 212s (interval 120s)",
     symptoms=["missed-evaluations"], pending=10,
     outcome=outcome("2025-08-21 07:15",
               "t-0388 added predict_linear forecasts over 90 days of raw data to a 2-minute group",
               "Paused the group and sent the tenant a version using recorded daily aggregates.",
               [R("rules-pause-tenant-group", "succeeded", "t-0388/capacity-forecast")],
               "oncall-ruth"))

page("k7", "KDISK", "2025-08-28 02:35", "kafka", "KafkaUnderReplicatedPartitions", "critical",
     "obs-kafka-broker-4", "kafka", "streaming",
     "Under-replicated partitions 97; log dir usage 98% on data-0-obs-kafka-broker-4",
     region="euc1", symptoms=["under-replicated"], pending=8,
     outcome=outcome("2025-08-28 03:50",
               "A burst of traces from t-6633's load test filled broker 4's volume in eu-central-1 faster than segments were tiered",
               "Grew the eu-central-1 node pool volumes and shortened traces-raw local retention; in sync at 03:40.",
               [R("strimzi-expand-broker-volume", "succeeded", "2 -> 3 TiB, traces-raw local retention 4 h")],
               "oncall-dmitri"))

human("c6", "CACHE", "2025-09-03 10:05", "web-ui", "medium",
      "SUP-24877 Dashboards show a dip to zero our Prometheus doesn't have",
      "Every panel on our 'Payments' dashboard dips to zero at 06:15-06:30 UTC today. If I shift the time range by a few minutes the dip disappears, and comes back when I go back to 'Last 6 hours'. Is the data there or not?",
      "support", "query", symptoms=["dashboard-gaps"], started=45,
      extra={"ticket": "SUP-24877", "tenant": "t-6602"},
      outcome=outcome("2025-09-03 10:50",
                "Empty extents cached for t-6602 during the 06:15 ingester restart in zone-c (the canary only samples 40 tenants)",
                "Cached and uncached results differed for t-6602; raised its cache generation, dashboard fixed.",
                [R("results-cache-drop-tenant-entries", "succeeded", "t-6602")],
                "oncall-priya"))

human("s6", "SAML", "2025-09-08 09:30", "web-ui", "high",
      "SUP-25010 Okta login broken since our cert rotation",
      "We rotated the signing certificate of the Lanternfish app in Okta this morning (yearly rotation). Since then every SSO attempt fails with 'SAML response signature invalid'. We pasted the new metadata URL into your SSO settings page but nothing changed.",
      "support", "identity", symptoms=["login-failure"],
      errs=["SAML response signature invalid"], started=35,
      extra={"ticket": "SUP-25010", "tenant": "t-3902", "customerTier": "enterprise"},
      outcome=outcome("2025-09-08 11:15",
                "The managed SSO broker connection for t-3902 caches IdP metadata for 7 days and does not reload it when the settings page changes; it kept the old signing certificate",
                "The on-call started with the Keycloak procedure: the Keycloak realms were shut down at the 23 August move, there was nothing to update. Reloading the connection's metadata on the managed SSO broker fixed logins at 11:10. Settings-page changes now trigger a reload (AUTH-208).",
                [R("keycloak-reimport-idp-metadata", "failed", "realm gone since the SSO broker move"),
                 R("sso-broker-refresh-idp-connection", "succeeded", "connection t-3902-okta")],
                "oncall-oona"))

page("g5", "GROWTH", "2025-09-12 11:15", "metrics-ingester", "MetricsIngesterMemoryHigh", "warning",
     "metrics-ingester", "metrics", "metrics",
     "Ingester memory at 87% of limit (avg over 42 pods); max tenant share of in-memory series 8%",
     symptoms=["memory-pressure"], pending=15,
     outcome=outcome("2025-09-12 12:20",
               "Back-to-school season growth across education and retail tenants in us-east-1",
               "Concentration check passed. 14 -> 16 ingesters per zone; memory at 72%.",
               [R("ingester-scale-out", "succeeded", "14 -> 16 per zone")],
               "oncall-kenji"))

page("rg5", "RING", "2025-09-17 04:45", "metrics-ingester", "IngesterRingMembersUnhealthy", "error",
     "metrics-ingester", "metrics", "metrics",
     "2 ingester ring members unhealthy for >10m; write quorum failures 2.6% of pushes",
     firing=2, symptoms=["ring-unhealthy"], pending=10,
     outcome=outcome("2025-09-17 05:20",
               "An EC2 instance retirement in zone-a killed two ingesters without a clean shutdown",
               "Removed the two dead ring entries; errors stopped.",
               [R("ingester-forget-ring-member", "succeeded", "2 entries, zone-a")],
               "oncall-felix"))

human("a4", "STORM", "2025-09-22 20:40", "notification-dispatcher", "critical",
      "Alert storm after the DNS provider outage, dispatcher backlog 70k",
      "Big managed DNS outage took half the internet down for 20 minutes and 3,100 tenants now have firing alerts. Dispatcher queue at 70k, oldest 12 min. Receivers answer fine, p99 ~350ms, no timeouts worth mentioning. Just too much at once.",
      "slack", "alerting", symptoms=["notification-backlog", "alert-delay"], started=20,
      extra={"channel": "#inc-alerting"},
      outcome=outcome("2025-09-22 21:20",
                "Alert volume from 3,100 tenants after a managed DNS provider's outage",
                "Added workers 24 -> 72; the queue drained in 13 minutes.",
                [R("dispatcher-scale-workers", "succeeded", "24 -> 72 workers")],
                "oncall-ruth"))

human("card6", "CARD", "2025-09-26 08:20", "ingest-gateway", "high",
      "SUP-25533 remote_write failing with 500s from our prod-eu Prometheus",
      "Our Prometheus servers in prod-eu get 500s on most remote_write requests since ~07:50 UTC and their WAL keeps growing. Other clusters of ours seem fine. We deployed a new version of our app with some extra metrics this morning.",
      "support", "ingest", region="euc1", symptoms=["5xx", "write-errors"],
      errs=["server returned HTTP status 500 Internal Server Error: failed pushing to ingester: rpc error: code = Unavailable"],
      started=30, extra={"ticket": "SUP-25533", "tenant": "t-8857"},
      outcome=outcome("2025-09-26 09:05",
                "t-8857's new app version put a request path with ids into a label; their series went from 1.5M to 8M and the ingesters of their shard OOM-looped",
                "The ingesters of t-8857's shard were crash looping; the tenant held 52% of in-memory series in eu-central-1. Limited them to 2.5M series; their writes above the limit now get 429 and the rest flow again. The customer fixed the label.",
                [R("ingester-cap-tenant-series", "succeeded", "t-8857 limit 2.5M, eu-central-1")],
                "oncall-anjali"))

page("s7", "SAML", "2025-10-01 13:35", "auth-service", "SSOLoginFailureRatio", "critical",
     "auth-service", "auth", "identity",
     "SAML login failure ratio 94% for connection t-6644-okta over 15m (163 attempts)",
     symptoms=["login-failure"], pending=15,
     outcome=outcome("2025-10-01 14:05",
               "t-6644 rotated its Okta signing certificate; the broker connection still held the old one",
               "Reloaded the connection's metadata on the SSO broker; logins back.",
               [R("sso-broker-refresh-idp-connection", "succeeded", "connection t-6644-okta")],
               "oncall-oona"))

human("w5", "WEBHOOK", "2025-10-07 16:50", "notification-dispatcher", "high",
      "SUP-26101 Opsgenie alerts arriving late",
      "Our alerts show as firing in your UI on time, but Opsgenie only receives them 10-20 minutes later. This has been going on since about 16:10 UTC. Please look into it.",
      "support", "alerting", symptoms=["alert-delay"], started=40,
      extra={"ticket": "SUP-26101", "tenant": "t-1931"},
      outcome=outcome("2025-10-07 17:25",
                "Not the customer's receiver: t-0773's webhook to an overloaded on-prem relay timed out on every request and held the shared workers",
                "Opsgenie itself answered fast. In-flight was 84% to t-0773's relay host; moved it to the slow lane and the queue drained.",
                [R("dispatcher-isolate-slow-webhook", "succeeded", "t-0773 relay host")],
                "oncall-sol"))

page("r6", "RULE", "2025-10-13 07:15", "rule-evaluator", "RuleEvaluatorMissedIterations", "error",
     "rule-evaluator-1", "alerting", "alerting",
     "305 missed rule group iterations in 5m on rule-evaluator-1; slowest group t-9120/network-slis 117s (interval 60s)",
     region="euc1", symptoms=["missed-evaluations"], pending=10,
     outcome=outcome("2025-10-13 07:50",
               "t-9120 added SLIs computed over flow-log metrics with 700k series",
               "Paused t-9120/network-slis; shard 1 caught up.",
               [R("rules-pause-tenant-group", "succeeded", "t-9120/network-slis, eu-central-1")],
               "oncall-ruth"))

page("c7", "CACHE", "2025-10-20 11:05", "query-frontend", "ResultsCacheCanaryMismatch", "warning",
     "query-frontend", "query", "query",
     "Cached vs uncached canary results differ for 2 tenants (max sample loss 62% in a 15m window)",
     region="euc1", symptoms=["stale-results"], pending=15,
     outcome=outcome("2025-10-20 11:40",
               "Empty extents cached during the eu-central-1 ingester rollout at 10:30",
               "Raised the two tenants' cache generations.",
               [R("results-cache-drop-tenant-entries", "succeeded", "t-9034, t-1204")],
               "oncall-priya"))

human("s8", "SAML", "2025-10-27 09:40", "auth-service", "high",
      "t-2718 SSO failing after their ADFS token-signing cert rollover",
      "CSM escalation: t-2718 (ADFS) says logins fail since ADFS rolled its token-signing certificate last night (AutoCertificateRollover). auth-service logs show signature validation failures for their connection only, every other SAML connection is fine.",
      "slack", "identity", symptoms=["login-failure"],
      errs=["saml: assertion signature validation failed for connection t-2718-adfs"], started=55,
      extra={"channel": "#inc-identity", "tenant": "t-2718"},
      outcome=outcome("2025-10-27 10:20",
                "ADFS automatic certificate rollover for t-2718; the broker connection kept the previous certificate",
                "Reloaded the connection's metadata from the ADFS federation metadata URL; logins work.",
                [R("sso-broker-refresh-idp-connection", "succeeded", "connection t-2718-adfs")],
                "oncall-oona"))

page("a5", "STORM", "2025-11-03 22:10", "notification-dispatcher", "NotificationQueueBacklog",
     "critical", "notification-dispatcher", "alerting", "alerting",
     "Dispatch queue depth 38,300, oldest message 9m; firing tenants 1,480; receiver p99 0.5s",
     symptoms=["notification-backlog"], pending=5,
     outcome=outcome("2025-11-03 22:40",
               "A payment network outage made 1,480 tenants' checkout alerts fire together",
               "Concentration check passed; added workers 24 -> 56, queue drained in 8 minutes.",
               [R("dispatcher-scale-workers", "succeeded", "24 -> 56 workers")],
               "oncall-sol"))

page("card7", "CARD", "2025-11-10 03:25", "metrics-ingester", "MetricsIngesterOOMKilled", "critical",
     "metrics-ingester-zone-c-2", "metrics", "metrics",
     "4 ingester OOM kills in 20m; top tenant t-4096 at 39% of in-memory series",
     firing=4, symptoms=["oom-kill"], pending=5,
     outcome=outcome("2025-11-10 04:00",
               "t-4096 shipped a Kubernetes operator that adds a label per reconcile loop id to its metrics",
               "Limited t-4096 to 3M series; the shard recovered.",
               [R("ingester-cap-tenant-series", "succeeded", "t-4096 limit 3M")],
               "oncall-anjali"))

page("w6", "WEBHOOK", "2025-11-17 19:30", "notification-dispatcher", "NotificationDispatchLatencyHigh",
     "error", "notification-dispatcher", "alerting", "alerting",
     "p99 dispatch latency 11m; webhook timeouts 2,700/5m, 88% to one receiver host",
     symptoms=["alert-delay"], pending=10, outcome=None)

human("c8", "CACHE", "2025-11-24 10:20", "query-frontend", "medium",
      "Holes in dashboards again after today's ingester rollout",
      "After the 09:30 zone-c ingester rollout at least two tenants (t-1408, t-6602) see panels flat at zero between 09:30 and 09:45 that go away when the step changes. The canary didn't fire, probably neither is in its sample.",
      "slack", "query", symptoms=["dashboard-gaps", "stale-results"], started=35,
      extra={"channel": "#team-query"}, outcome=None)

# ---------------------------------------------------------------------------
# Contradictions (keys refer to incidents; names are filled in at build time)
# ---------------------------------------------------------------------------
CONTRADICTIONS = [
    {
        "name": "ingester-memory-pressure-response",
        "topic": "metrics-ingester memory pressure and OOM kills",
        "versions": [
            ("2025-03-17 10:00", ["g1", "card1"],
             {"g1": "adding ingesters (24 -> 30) brought memory back under 75% and cleared the alert",
              "card1": "adding ingesters changed nothing: the OOMs stayed on the tenant's shuffle shard; a per-tenant series limit stopped them"},
             {"state": "open"}),
            ("2025-05-22 16:00", ["g1", "card1", "card2", "g2"],
             {"g1": "adding ingesters (24 -> 30) brought memory back under 75% and cleared the alert",
              "card1": "adding ingesters changed nothing: the OOMs stayed on the tenant's shuffle shard; a per-tenant series limit stopped them",
              "card2": "a per-tenant series limit on the exploding tenant stopped the OOMs within minutes",
              "g2": "limiting the largest tenant (5% of series) did nothing; adding ingesters did"},
             {"state": "reconciled",
              "note": "Both fixes hold, under different conditions. Growth spread over many tenants (top tenant under about 10% of in-memory series, memory rising evenly on all ingesters): add ingesters (ingester-scale-out). One tenant's series jump (top tenant above 25% of in-memory series, OOMs or high memory confined to the pods of its shuffle shard, usually after a new label): limit that tenant's series (ingester-cap-tenant-series) and do not add ingesters, the tenant's shard keeps its pods. Revision 2 of ingester-scale-out refuses to run above 25%."}),
        ],
    },
    {
        "name": "notification-backlog-response",
        "topic": "notification dispatch backlog and late alert notifications",
        "versions": [
            ("2025-04-10 12:00", ["a1", "w1"],
             {"a1": "more dispatcher workers (12 -> 40) drained a 48k backlog in 9 minutes",
              "w1": "more workers did not help: every worker waited on one receiver host's 30 s timeouts; taking that receiver out of the shared pool cleared the backlog"},
             {"state": "open"}),
            ("2025-06-20 14:00", ["a1", "w1", "w2", "a2", "w3"],
             {"a1": "more dispatcher workers (12 -> 40) drained a 48k backlog in 9 minutes",
              "w1": "more workers did not help: every worker waited on one receiver host's 30 s timeouts; taking that receiver out of the shared pool cleared the backlog",
              "w2": "moving the one timing-out receiver host to the slow lane cleared the latency in 3 minutes",
              "a2": "moving the busiest receiver to the slow lane did nothing in an alert storm; more workers drained it",
              "w3": "with few tenants firing and in-flight concentrated on one host, the slow lane fixed it"},
             {"state": "reconciled",
              "note": "Both fixes hold, under different conditions. A volume surge with healthy receivers (hundreds or thousands of firing tenants, receiver p99 under 1 s, in-flight spread over many hosts): add workers (dispatcher-scale-workers). A backlog while one receiver host times out (few firing tenants, webhook timeouts rising, most in-flight requests to one host): move that host to the slow lane (dispatcher-isolate-slow-webhook); added workers only queue behind it. Revision 2 of dispatcher-scale-workers refuses to run when one host holds over 30% of in-flight requests."}),
        ],
    },
]

# ---------------------------------------------------------------------------
# Checks on the writing
# ---------------------------------------------------------------------------
SYMPTOMS = {"under-replicated", "disk-full", "5xx", "4xx", "write-errors", "ingest-drop",
            "consumer-lag", "memory-pressure", "oom-kill", "high-cardinality", "ring-unhealthy",
            "compaction-halted", "block-growth", "slow-queries", "query-timeout",
            "dashboard-gaps", "stale-results", "missed-evaluations", "alert-delay",
            "notification-backlog", "webhook-timeout", "login-failure", "billing-mismatch",
            "latency-spike", "error-rate"}
FORBIDDEN = ["runbook", "rollback", "roll back", "rolled back", "revert", "forget", "isolate",
             "scale out", "scale-out", "expand", "re-import", "reimport", "pause", "no-compact",
             "cache generation", "slow lane", "series limit", "invalidate", "purge"]


def incident_text(inc):
    parts = [inc["title"], inc["description"]] + inc["symptoms"] + inc["errorSignatures"]
    parts += [str(v) for v in inc["labels"].values()]
    if inc["deployment"]:
        parts += [str(v) for v in inc["deployment"].values()]
    return " ".join(parts).lower()


# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------
def build():
    incs = sorted(INCIDENTS, key=lambda i: T(i["at"]))
    keys = [i["key"] for i in incs]
    assert len(keys) == len(set(keys)), "duplicate incident keys"
    name = {}
    for n, inc in enumerate(incs, 1):
        inc["name"] = "ob-%04d" % n
        name[inc["key"]] = inc["name"]

    # Outcome summaries refer to incidents by name; check the ones written by hand.
    for inc in incs:
        if inc["dup_of"]:
            o = inc["outcome"]
            assert name[inc["dup_of"]] in o["summary"], (inc["key"], name[inc["dup_of"]])

    runbook_applies = sorted(((T(at), rb, rev) for rb, rev, at in RUNBOOK_APPLIES))
    mig_times = [(T(m["at"]), m) for m in MIGRATIONS]

    def catalog(t):
        return {rb for at, rb, rev in runbook_applies if at < t}

    def stale(t):
        s = set()
        for at, m in mig_times:
            if at < t:
                s.update(m["spec"]["impactedRunbooks"])
        return s

    def family_fix(fam, t):
        rb = None
        for frm, r in FAMILIES[fam]["fix"]:
            if T(frm) <= t:
                rb = r
        return rb

    def outcome_time(inc):
        return T(inc["outcome"]["at"]) if inc["outcome"] else None

    # ---- truth ----
    for idx, inc in enumerate(incs):
        t = T(inc["at"])
        prev = [p for p in incs[:idx] if p["fam"] == inc["fam"]
                and p["outcome"] and outcome_time(p) < t]
        prev.sort(key=lambda p: T(p["at"]), reverse=True)
        precedents = [p["name"] for p in prev]
        rb = family_fix(inc["fam"], t)
        if rb is not None and rb not in catalog(t):
            rb = None
        unsafe = set(stale(t))
        for p in prev:
            for a in p["outcome"]["actions"]:
                if a["result"] == "failed" and a["_rb"]:
                    unsafe.add(a["_rb"])
        unsafe.discard(rb)
        assert rb is None or rb not in stale(t), (inc["key"], rb)
        for u in unsafe:
            assert u in catalog(t), (inc["key"], u)
        inc["truth"] = {"precedents": precedents, "runbook": rb, "novel": not precedents,
                        "unsafeRunbooks": sorted(unsafe)}

    # ---- consistency checks ----
    for inc in incs:
        assert inc["symptoms"] is not None
        for s in inc["symptoms"]:
            assert s in SYMPTOMS, (inc["key"], s)
        text = incident_text(inc)
        for w in FORBIDDEN + [rb for rb in RB_SPECS]:
            assert w not in text, (inc["key"], w)
        assert inc["started"] <= 100
        if inc["style"] == "page":
            assert len(inc["symptoms"]) <= 2
        o = inc["outcome"]
        if o:
            assert T(o["at"]) > T(inc["at"]), inc["key"]
            fixed = None
            for a in o["actions"]:
                assert a["result"] in ("succeeded", "failed", "partial")
                if a["_rb"]:
                    assert a["_rb"] in catalog(T(o["at"])), (inc["key"], a["_rb"])
                if a["result"] == "succeeded" and a["_rb"]:
                    fixed = a["_rb"]
            o["runbook"] = fixed
            assert fixed == inc["truth"]["runbook"], (inc["key"], fixed, inc["truth"]["runbook"])
    for rb in RB_SPECS:
        for spec in RB_SPECS[rb]:
            for s in spec["symptoms"]:
                assert s in SYMPTOMS, (rb, s)
    assert sum(1 for i in incs if not i["outcome"]) <= 3

    # ---- events ----
    events = []  # (time, order, obj)
    order = 0

    def add(t, obj):
        nonlocal order
        events.append((t, order, obj))
        order += 1

    add(T("2025-02-03 08:55"), {"at": None, "type": "apply", "object": topology_cm(TOPOLOGY_V1)})
    for at, rb, rev in runbook_applies:
        meta = {"name": rb}
        if rev > 0:
            meta["annotations"] = {"lanternfish.example/revision": str(rev + 1)}
        add(at, {"at": None, "type": "apply", "object": {
            "apiVersion": API, "kind": "Runbook", "metadata": meta, "spec": RB_SPECS[rb][rev]}})
    for at, m in mig_times:
        add(at, {"at": None, "type": "apply", "object": {
            "apiVersion": API, "kind": "ArchitectureMigration",
            "metadata": {"name": m["name"]}, "spec": m["spec"]}})
        if m["topology_after"]:
            add(at + timedelta(minutes=5),
                {"at": None, "type": "apply", "object": topology_cm(m["topology_after"])})
    for c in CONTRADICTIONS:
        for at, mems, claims, resolution in c["versions"]:
            for k in mems:
                inc = next(i for i in incs if i["key"] == k)
                assert inc["outcome"] and T(inc["outcome"]["at"]) < T(at), (c["name"], k)
            add(T(at), {"at": None, "type": "apply", "object": {
                "apiVersion": API, "kind": "Contradiction", "metadata": {"name": c["name"]},
                "spec": {"topic": c["topic"], "memories": [name[k] for k in mems],
                         "claims": [{"memory": name[k], "claim": claims[k]} for k in mems],
                         "resolution": resolution}}})
    for inc in incs:
        t = T(inc["at"])
        spec = {"service": inc["service"], "severity": inc["severity"], "title": inc["title"],
                "description": inc["description"], "symptoms": inc["symptoms"],
                "errorSignatures": inc["errorSignatures"]}
        if inc["deployment"]:
            spec["deployment"] = inc["deployment"]
        spec["startedAt"] = fmt(t - timedelta(minutes=inc["started"]))
        spec["labels"] = inc["labels"]
        add(t, {"at": None, "type": "incident", "object": {
            "apiVersion": API, "kind": "Incident", "metadata": {"name": inc["name"]},
            "spec": spec}, "truth": inc["truth"]})
        o = inc["outcome"]
        if o:
            add(T(o["at"]), {"at": None, "type": "outcome", "incident": inc["name"],
                             "resolution": {
                                 "rootCause": o["rootCause"], "summary": o["summary"],
                                 "runbook": o["runbook"],
                                 "actions": [{"action": a["action"], "result": a["result"]}
                                             for a in o["actions"]],
                                 "confirmedBy": o["by"]}})
    events.sort(key=lambda e: (e[0], e[1]))
    times = [e[0] for e in events]
    assert len(times) == len(set(times)), "two events share a timestamp"
    lines = []
    for t, _, obj in events:
        obj["at"] = fmt(t)
        lines.append(json.dumps(obj, ensure_ascii=True))
    return incs, events, lines


def stats(incs, events):
    out = []
    kinds = {}
    for _, _, e in events:
        k = e["type"] if e["type"] != "apply" else "apply:" + e["object"]["kind"]
        kinds[k] = kinds.get(k, 0) + 1
    out.append("events %d %s" % (len(events), sorted(kinds.items())))
    styles = {}
    for i in incs:
        styles[i["style"]] = styles.get(i["style"], 0) + 1
    out.append("incidents %d styles %s" % (len(incs), sorted(styles.items())))
    out.append("novel %d: %s" % (sum(i["truth"]["novel"] for i in incs),
                                 [i["name"] for i in incs if i["truth"]["novel"]]))
    out.append("runbook null %d" % sum(1 for i in incs if i["truth"]["runbook"] is None))
    out.append("with unsafe %d" % sum(1 for i in incs if i["truth"]["unsafeRunbooks"]))
    out.append("without outcome %s" % [i["name"] for i in incs if not i["outcome"]])
    fams = {}
    for i in incs:
        fams.setdefault(i["fam"], []).append(i["name"][3:])
    for f, v in fams.items():
        out.append("  %-12s %d %s" % (f, len(v), " ".join(v)))
    for i in incs:
        tr = i["truth"]
        out.append("%s %-11s %-6s %-24s rb=%s prec=%s unsafe=%s" % (
            i["name"], i["fam"], i["key"], i["service"], tr["runbook"],
            ",".join(p[3:] for p in tr["precedents"]), ",".join(tr["unsafeRunbooks"])))
    return "\n".join(out)


def main():
    incs, events, lines = build()
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    if "--stats" in sys.argv:
        print(stats(incs, events))
    else:
        print("wrote %s (%d events, %d incidents)" % (OUT, len(lines), len(incs)))


if __name__ == "__main__":
    main()
