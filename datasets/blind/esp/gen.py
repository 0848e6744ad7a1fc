#!/usr/bin/env python3
"""Generate history.jsonl: a made-up incident history for Fernpost, a fictional
e-mail service provider (ESP). Everything here is invented for testing an
incident-memory tool; no real company, customer or incident is described.

Standard library only, deterministic: `python3 gen.py` rewrites the same file
byte for byte. The answer key (`truth`) of every incident is derived from its
failure family and the state of the world at its time (catalog, migrations,
earlier outcomes), never written by hand per incident.
"""
import json
import os
import re
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Topology (an edge means "calls")
# ---------------------------------------------------------------------------
TOPOLOGY_V1 = [
    ("campaign-api", ["contact-store", "segmentation-engine", "template-renderer",
                      "send-scheduler", "suppression-service", "billing-meter"]),
    ("segmentation-engine", ["contact-store"]),
    ("template-renderer", ["contact-store"]),
    ("send-scheduler", ["segmentation-engine", "template-renderer", "suppression-service",
                        "send-queue", "billing-meter"]),
    ("send-queue", []),
    ("mta-pool", ["send-queue", "mx-resolver"]),
    ("mx-resolver", []),
    ("bounce-processor", ["mta-pool", "suppression-service", "contact-store", "event-bus"]),
    ("suppression-service", ["contact-store"]),
    ("contact-store", []),
    ("tracking-edge", ["click-tracker"]),
    ("click-tracker", ["event-bus"]),
    ("event-bus", []),
    ("webhook-dispatcher", ["event-bus"]),
    ("billing-meter", ["event-bus", "contact-store"]),
]
# After the MTA move (PowerMTA -> KumoMTA) the MTA writes its delivery log to
# Kafka and bounce-processor reads it there instead of pulling accounting files.
TOPOLOGY_V2 = [
    (s, (["send-queue", "mx-resolver", "event-bus"] if s == "mta-pool" else
         ["suppression-service", "contact-store", "event-bus"] if s == "bounce-processor" else d))
    for s, d in TOPOLOGY_V1
]


def topology_cm(topo):
    lines = []
    for svc, deps in topo:
        lines.append("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)))
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "service-topology", "namespace": "recall-system",
                         "labels": {"recall.dev/topology": "true"}},
            "data": {"topology": "\n".join(lines) + "\n"}}


# ---------------------------------------------------------------------------
# Runbooks (procedural memory). Versions: the same name applied again replaces
# the earlier manifest.
# ---------------------------------------------------------------------------
def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


PMTA = "registry.fernpost.example/pmta-tools:5.0.3"
KUMO = "registry.fernpost.example/kumo-tools:2025.08.1"
KUBECTL = "bitnami/kubectl:1.30"
FPCTL = "registry.fernpost.example/fpctl:3.2"

RUNBOOK_VERSIONS = {
    ("mta-apply-isp-backoff", 1): {
        "title": "Lower the per-ISP sending rate on an IP pool while that ISP is deferring the pool",
        "services": ["mta-pool", "send-queue"],
        "symptoms": ["smtp-4xx-deferrals", "delivery-rate-drop", "queue-backlog"],
        "steps": [
            step("lower-domain-rate", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "set-domain", "$(ISP)",
                  "--max-msg-rate", "$(RATE_PER_IP)/m", "--max-smtp-out", "$(CONN_PER_IP)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "show-domain", "$(ISP)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "reset-domain", "$(ISP)"],
                 "medium", "one ISP on one IP pool", 60),
            step("queue-backoff-mode", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "queue-mode", "$(ISP)", "backoff"],
                 ["pmta-ctl", "--pool", "$(POOL)", "show-queue", "$(ISP)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "queue-mode", "$(ISP)", "normal"],
                 "low", "one ISP queue on one IP pool", 20),
        ],
    },
    ("mta-apply-isp-backoff", 2): {
        "title": "Lower the per-ISP sending rate on an IP pool while that ISP is deferring the pool (KumoMTA)",
        "services": ["mta-pool", "send-queue"],
        "symptoms": ["smtp-4xx-deferrals", "delivery-rate-drop", "queue-backlog"],
        "steps": [
            step("shaping-override", KUMO,
                 ["fp-shaping", "override", "--pool", "$(POOL)", "--site", "$(ISP)",
                  "--max-message-rate", "$(RATE_PER_IP)/min", "--connection-limit", "$(CONN_PER_IP)",
                  "--ttl", "6h"],
                 ["fp-shaping", "show", "--pool", "$(POOL)", "--site", "$(ISP)"],
                 ["fp-shaping", "clear", "--pool", "$(POOL)", "--site", "$(ISP)"],
                 "medium", "one ISP on one IP pool", 45),
            step("spread-retries", KUMO,
                 ["fp-kumo", "queue", "retry-interval", "--pool", "$(POOL)", "--site", "$(ISP)", "--min", "20m"],
                 ["fp-kumo", "queue", "show", "--pool", "$(POOL)", "--site", "$(ISP)"],
                 ["fp-kumo", "queue", "retry-interval", "--pool", "$(POOL)", "--site", "$(ISP)", "--default"],
                 "low", "one ISP queue on one IP pool", 20),
        ],
    },
    ("mta-scale-delivery-workers", 1): {
        "title": "Add delivery hosts and outbound connections to an IP pool whose own connection cap is the bottleneck",
        "services": ["mta-pool", "send-queue"],
        "symptoms": ["queue-backlog", "delivery-rate-drop", "connection-exhaustion"],
        "steps": [
            step("add-delivery-hosts", PMTA,
                 ["pmta-fleet", "grow", "--pool", "$(POOL)", "--hosts", "+$(HOSTS)"],
                 ["pmta-fleet", "plan", "--pool", "$(POOL)", "--hosts", "+$(HOSTS)"],
                 ["pmta-fleet", "shrink", "--pool", "$(POOL)", "--hosts", "-$(HOSTS)"],
                 "medium", "one IP pool", 420),
            step("raise-max-smtp-out", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "set-domain", "$(ISP)", "--max-smtp-out", "$(CONNECTIONS)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "show-domain", "$(ISP)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "reset-domain", "$(ISP)"],
                 "medium", "one ISP on one IP pool", 30),
        ],
    },
    ("mta-scale-delivery-workers", 2): {
        "title": "Add kumod replicas and outbound connections to an IP pool whose own connection cap is the bottleneck (KumoMTA)",
        "services": ["mta-pool", "send-queue"],
        "symptoms": ["queue-backlog", "delivery-rate-drop", "connection-exhaustion"],
        "steps": [
            step("add-kumod-replicas", KUBECTL,
                 ["kubectl", "-n", "mta", "scale", "statefulset/kumod-$(POOL)", "--replicas=$(REPLICAS)"],
                 ["kubectl", "-n", "mta", "get", "statefulset/kumod-$(POOL)", "-o", "wide"],
                 ["kubectl", "-n", "mta", "scale", "statefulset/kumod-$(POOL)", "--replicas=$(PREVIOUS_REPLICAS)"],
                 "medium", "one IP pool", 240),
            step("raise-connection-limit", KUMO,
                 ["fp-shaping", "override", "--pool", "$(POOL)", "--site", "$(ISP)",
                  "--connection-limit", "$(CONNECTIONS)", "--ttl", "12h"],
                 ["fp-shaping", "show", "--pool", "$(POOL)", "--site", "$(ISP)"],
                 ["fp-shaping", "clear", "--pool", "$(POOL)", "--site", "$(ISP)"],
                 "medium", "one ISP on one IP pool", 30),
        ],
    },
    ("warmup-hold-ip-pool-step", 1): {
        "title": "Cap a dedicated IP pool at its current warm-up step and send the overflow through a shared pool",
        "services": ["mta-pool"],
        "symptoms": ["smtp-4xx-deferrals", "delivery-rate-drop", "ip-reputation"],
        "steps": [
            step("pin-warmup-step", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "warmup", "pin", "--day", "$(WARMUP_DAY)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "warmup", "show"],
                 ["pmta-ctl", "--pool", "$(POOL)", "warmup", "unpin"],
                 "low", "one dedicated pool", 30),
            step("overflow-to-shared", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "overflow", "--to", "$(SHARED_POOL)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "overflow", "--show"],
                 ["pmta-ctl", "--pool", "$(POOL)", "overflow", "--none"],
                 "medium", "one customer's mail moves to a shared pool", 30),
        ],
    },
    ("warmup-hold-ip-pool-step", 2): {
        "title": "Cap a dedicated IP pool at its current warm-up step and send the overflow through a shared pool (KumoMTA)",
        "services": ["mta-pool"],
        "symptoms": ["smtp-4xx-deferrals", "delivery-rate-drop", "ip-reputation"],
        "steps": [
            step("pin-warmup-step", KUMO,
                 ["fp-shaping", "warmup", "pin", "--pool", "$(POOL)", "--day", "$(WARMUP_DAY)"],
                 ["fp-shaping", "warmup", "show", "--pool", "$(POOL)"],
                 ["fp-shaping", "warmup", "unpin", "--pool", "$(POOL)"],
                 "low", "one dedicated pool", 30),
            step("overflow-to-shared", KUMO,
                 ["fp-kumo", "pool", "set-fallback", "--pool", "$(POOL)", "--fallback", "$(SHARED_POOL)"],
                 ["fp-kumo", "pool", "show", "--pool", "$(POOL)"],
                 ["fp-kumo", "pool", "set-fallback", "--pool", "$(POOL)", "--none"],
                 "medium", "one customer's mail moves to a shared pool", 30),
        ],
    },
    ("pmta-pull-listed-ip", 1): {
        "title": "Take a blocklisted IP out of its PowerMTA pool and file the delisting request",
        "services": ["mta-pool"],
        "symptoms": ["blocklist-listing", "smtp-5xx-rejections", "delivery-rate-drop"],
        "steps": [
            step("disable-virtual-mta", PMTA,
                 ["pmta-ctl", "--pool", "$(POOL)", "disable-vmta", "$(IP)", "--reload"],
                 ["pmta-ctl", "--pool", "$(POOL)", "show-vmta", "$(IP)"],
                 ["pmta-ctl", "--pool", "$(POOL)", "enable-vmta", "$(IP)", "--reload"],
                 "medium", "one sending IP", 60),
            step("file-delisting", "registry.fernpost.example/fp-delist:1.4",
                 ["fp-delist", "request", "--ip", "$(IP)", "--list", "$(LIST)"],
                 ["fp-delist", "status", "--ip", "$(IP)"],
                 [],
                 "low", "none (ticket only)", 15),
        ],
    },
    ("kumomta-drain-listed-source", 1): {
        "title": "Suspend a blocklisted egress source in KumoMTA and file the delisting request",
        "services": ["mta-pool"],
        "symptoms": ["blocklist-listing", "smtp-5xx-rejections", "delivery-rate-drop"],
        "steps": [
            step("suspend-egress-source", KUMO,
                 ["fp-kumo", "source", "suspend", "--source", "$(SOURCE)", "--reason", "blocklisted:$(LIST)"],
                 ["fp-kumo", "source", "show", "--source", "$(SOURCE)"],
                 ["fp-kumo", "source", "resume", "--source", "$(SOURCE)"],
                 "medium", "one egress IP", 30),
            step("file-delisting", "registry.fernpost.example/fp-delist:1.4",
                 ["fp-delist", "request", "--ip", "$(IP)", "--list", "$(LIST)"],
                 ["fp-delist", "status", "--ip", "$(IP)"],
                 [],
                 "low", "none (ticket only)", 15),
        ],
    },
    ("campaign-pause-sender-account", 1): {
        "title": "Stop all sending for one account whose list is bouncing and open a compliance review",
        "services": ["campaign-api", "send-scheduler", "bounce-processor"],
        "symptoms": ["hard-bounce-spike", "spam-trap-hits", "complaint-rate"],
        "steps": [
            step("suspend-account-sending", FPCTL,
                 ["fpctl", "account", "sending", "suspend", "--account", "$(ACCOUNT)", "--reason", "list-quality"],
                 ["fpctl", "account", "sending", "status", "--account", "$(ACCOUNT)"],
                 ["fpctl", "account", "sending", "resume", "--account", "$(ACCOUNT)"],
                 "high", "one customer account", 20),
            step("stop-scheduled-campaigns", FPCTL,
                 ["fpctl", "campaign", "stop", "--account", "$(ACCOUNT)", "--scheduled", "--in-flight"],
                 ["fpctl", "campaign", "list", "--account", "$(ACCOUNT)", "--state", "scheduled,sending"],
                 ["fpctl", "campaign", "reschedule", "--account", "$(ACCOUNT)", "--stopped-by", "$(JOB_ID)"],
                 "high", "one customer account", 40),
            step("open-compliance-review", FPCTL,
                 ["fpctl", "compliance", "open-review", "--account", "$(ACCOUNT)", "--evidence", "bounces"],
                 ["fpctl", "compliance", "list", "--account", "$(ACCOUNT)"],
                 [],
                 "low", "none (ticket only)", 10),
        ],
    },
    ("suppression-restore-misclassified-bounces", 1): {
        "title": "Pin the bounce classifier to its last good rules, re-classify recent bounces and remove wrong hard-bounce suppressions",
        "services": ["suppression-service", "bounce-processor"],
        "symptoms": ["suppression-spike", "hard-bounce-spike"],
        "steps": [
            step("pin-classifier-rules", "registry.fernpost.example/bouncectl:2.7",
                 ["bouncectl", "rules", "pin", "--version", "$(LAST_GOOD_RULES)"],
                 ["bouncectl", "rules", "diff", "--from", "$(LAST_GOOD_RULES)", "--to", "live"],
                 ["bouncectl", "rules", "unpin"],
                 "medium", "bounce classification for all accounts", 30),
            step("reclassify-window", "registry.fernpost.example/bouncectl:2.7",
                 ["bouncectl", "reclassify", "--since", "$(WINDOW_START)", "--write"],
                 ["bouncectl", "reclassify", "--since", "$(WINDOW_START)", "--report-only"],
                 [],
                 "low", "bounce records of the window", 600),
            step("remove-wrong-suppressions", "registry.fernpost.example/supctl:1.9",
                 ["supctl", "remove", "--reason", "hard_bounce", "--source", "reclassify:$(JOB_ID)"],
                 ["supctl", "remove", "--reason", "hard_bounce", "--source", "reclassify:$(JOB_ID)", "--count-only"],
                 ["supctl", "re-add", "--source", "reclassify:$(JOB_ID)"],
                 "high", "suppression entries of the window, all accounts", 900),
        ],
    },
    ("proxysql-shun-lagging-replica", 1): {
        "title": "Take a lagging MySQL replica out of the ProxySQL read hostgroup and set a lag limit",
        "services": ["contact-store"],
        "symptoms": ["replica-lag", "stale-reads"],
        "steps": [
            step("offline-soft-replica", "mysql:8.0",
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "UPDATE mysql_servers SET status='OFFLINE_SOFT' WHERE hostname='$(REPLICA)'; LOAD MYSQL SERVERS TO RUNTIME;"],
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "SELECT hostgroup_id,hostname,status,max_replication_lag FROM runtime_mysql_servers WHERE hostname='$(REPLICA)';"],
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "UPDATE mysql_servers SET status='ONLINE' WHERE hostname='$(REPLICA)'; LOAD MYSQL SERVERS TO RUNTIME;"],
                 "medium", "reads of one shard", 20),
            step("set-lag-limit", "mysql:8.0",
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "UPDATE mysql_servers SET max_replication_lag=30 WHERE hostgroup_id=$(READ_HOSTGROUP); LOAD MYSQL SERVERS TO RUNTIME; SAVE MYSQL SERVERS TO DISK;"],
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "SELECT hostname,max_replication_lag FROM mysql_servers WHERE hostgroup_id=$(READ_HOSTGROUP);"],
                 ["mysql", "-h", "proxysql-admin.contacts", "-P", "6032", "-e",
                  "UPDATE mysql_servers SET max_replication_lag=0 WHERE hostgroup_id=$(READ_HOSTGROUP); LOAD MYSQL SERVERS TO RUNTIME;"],
                 "low", "reads of one shard", 20),
        ],
    },
    ("vitess-drain-lagging-tablet", 1): {
        "title": "Take a lagging Vitess replica tablet out of serving until it catches up",
        "services": ["contact-store"],
        "symptoms": ["replica-lag", "stale-reads"],
        "steps": [
            step("mark-tablet-drained", "vitess/lite:v21.0.2",
                 ["vtctldclient", "--server", "vtctld.contacts:15999", "ChangeTabletType", "$(TABLET)", "drained"],
                 ["vtctldclient", "--server", "vtctld.contacts:15999", "GetTablet", "$(TABLET)"],
                 ["vtctldclient", "--server", "vtctld.contacts:15999", "ChangeTabletType", "$(TABLET)", "replica"],
                 "medium", "reads of one shard", 20),
            step("wait-and-return", "vitess/lite:v21.0.2",
                 ["fp-vt", "wait-lag", "--tablet", "$(TABLET)", "--below", "10s", "--then-type", "replica"],
                 ["fp-vt", "lag", "--tablet", "$(TABLET)"],
                 [],
                 "low", "one replica tablet", 1800),
        ],
    },
    ("segmentation-cancel-runaway-query", 1): {
        "title": "Stop a runaway segment build and kill its query on the shard primary",
        "services": ["segmentation-engine", "contact-store"],
        "symptoms": ["slow-query", "db-cpu", "timeout"],
        "steps": [
            step("cancel-segment-build", "registry.fernpost.example/segctl:4.1",
                 ["segctl", "builds", "cancel", "--segment", "$(SEGMENT)", "--flag", "needs-review", "--suspend-recurring"],
                 ["segctl", "builds", "list", "--shard", "$(SHARD)", "--running", "--sort", "cpu"],
                 ["segctl", "segments", "unflag", "--segment", "$(SEGMENT)"],
                 "low", "one customer segment", 20),
            step("kill-query", "mysql:8.0",
                 ["mysql", "-h", "$(SHARD_PRIMARY)", "-e", "KILL QUERY $(QUERY_ID);"],
                 ["mysql", "-h", "$(SHARD_PRIMARY)", "-e",
                  "SELECT id,time,LEFT(info,200) FROM information_schema.processlist WHERE id=$(QUERY_ID);"],
                 [],
                 "medium", "one query on one shard primary", 10),
        ],
    },
    ("segmentation-cancel-runaway-query", 2): {
        "title": "Stop a runaway segment build and kill its query on the shard primary (Vitess)",
        "services": ["segmentation-engine", "contact-store"],
        "symptoms": ["slow-query", "db-cpu", "timeout"],
        "steps": [
            step("cancel-segment-build", "registry.fernpost.example/segctl:4.3",
                 ["segctl", "builds", "cancel", "--segment", "$(SEGMENT)", "--flag", "needs-review", "--suspend-recurring"],
                 ["segctl", "builds", "list", "--shard", "$(SHARD)", "--running", "--sort", "cpu"],
                 ["segctl", "segments", "unflag", "--segment", "$(SEGMENT)"],
                 "low", "one customer segment", 20),
            step("kill-query", "vitess/lite:v21.0.2",
                 ["vtctldclient", "--server", "vtctld.contacts:15999", "ExecuteFetchAsDBA",
                  "$(PRIMARY_TABLET)", "KILL QUERY $(QUERY_ID)"],
                 ["vtctldclient", "--server", "vtctld.contacts:15999", "ExecuteFetchAsDBA",
                  "$(PRIMARY_TABLET)", "SELECT id,time,LEFT(info,200) FROM information_schema.processlist WHERE id=$(QUERY_ID)"],
                 [],
                 "medium", "one query on one shard primary", 10),
        ],
    },
    ("click-tracker-scale-out", 1): {
        "title": "Add click-tracker replicas and raise the autoscaler ceiling for a real click surge",
        "services": ["click-tracker"],
        "symptoms": ["5xx", "latency-spike", "cpu-saturation"],
        "steps": [
            step("add-replicas", KUBECTL,
                 ["kubectl", "-n", "tracking", "scale", "deployment/click-tracker", "--replicas=$(REPLICAS)"],
                 ["kubectl", "-n", "tracking", "get", "deployment/click-tracker", "hpa/click-tracker"],
                 ["kubectl", "-n", "tracking", "scale", "deployment/click-tracker", "--replicas=$(PREVIOUS_REPLICAS)"],
                 "low", "click-tracker in one region", 90),
            step("raise-hpa-max", KUBECTL,
                 ["kubectl", "-n", "tracking", "patch", "hpa/click-tracker", "--type=merge",
                  "-p", "{\"spec\":{\"maxReplicas\":$(MAX_REPLICAS)}}"],
                 ["kubectl", "-n", "tracking", "get", "hpa/click-tracker", "-o", "yaml"],
                 ["kubectl", "-n", "tracking", "patch", "hpa/click-tracker", "--type=merge",
                  "-p", "{\"spec\":{\"maxReplicas\":$(PREVIOUS_MAX)}}"],
                 "low", "click-tracker in one region", 15),
        ],
    },
    ("tracking-edge-challenge-link-scanners", 1): {
        "title": "Answer mail-security link-scanner prefetches at the CDN edge without reaching the click-tracker origin",
        "services": ["tracking-edge", "click-tracker"],
        "symptoms": ["bot-traffic", "5xx", "click-inflation"],
        "steps": [
            step("enable-scanner-rule", "registry.fernpost.example/fp-edge:2.0",
                 ["fp-edge", "rules", "enable", "scanner-prefetch-interstitial", "--asn-list", "security-gateways",
                  "--hosts", "$(TRACKING_HOSTS)"],
                 ["fp-edge", "rules", "simulate", "scanner-prefetch-interstitial", "--last", "10m"],
                 ["fp-edge", "rules", "disable", "scanner-prefetch-interstitial", "--hosts", "$(TRACKING_HOSTS)"],
                 "medium", "link-scanner requests on the tracking hosts", 60),
            step("mark-scanner-clicks", "registry.fernpost.example/fp-edge:2.0",
                 ["fp-edge", "clicks", "mark-nonhuman", "--campaign", "$(CAMPAIGN)", "--asn-list", "security-gateways"],
                 ["fp-edge", "clicks", "mark-nonhuman", "--campaign", "$(CAMPAIGN)", "--asn-list",
                  "security-gateways", "--count-only"],
                 ["fp-edge", "clicks", "unmark", "--campaign", "$(CAMPAIGN)", "--job", "$(JOB_ID)"],
                 "low", "click statistics of one campaign", 120),
        ],
    },
    ("webhook-park-failing-endpoint", 1): {
        "title": "Set a failing customer webhook subscription aside so it stops blocking the shared workers",
        "services": ["webhook-dispatcher"],
        "symptoms": ["webhook-backlog", "timeout"],
        "steps": [
            step("park-subscription", "registry.fernpost.example/hookctl:1.3",
                 ["hookctl", "subscription", "park", "--subscription", "$(SUBSCRIPTION_ID)", "--spool"],
                 ["hookctl", "subscription", "show", "--subscription", "$(SUBSCRIPTION_ID)"],
                 ["hookctl", "subscription", "unpark", "--subscription", "$(SUBSCRIPTION_ID)", "--replay-spool"],
                 "low", "one customer subscription", 15),
        ],
    },
    ("webhook-park-failing-endpoint", 2): {
        "title": "Set a failing customer webhook endpoint host aside (all its subscriptions) so it stops blocking the shared workers",
        "services": ["webhook-dispatcher"],
        "symptoms": ["webhook-backlog", "timeout"],
        "steps": [
            step("park-endpoint-host", "registry.fernpost.example/hookctl:1.5",
                 ["hookctl", "host", "park", "--host", "$(ENDPOINT_HOST)", "--all-subscriptions", "--spool"],
                 ["hookctl", "host", "show", "--host", "$(ENDPOINT_HOST)"],
                 ["hookctl", "host", "unpark", "--host", "$(ENDPOINT_HOST)", "--replay-spool"],
                 "low", "one customer endpoint host", 15),
            step("cap-host-concurrency", "registry.fernpost.example/hookctl:1.5",
                 ["hookctl", "host", "limit", "--host", "$(ENDPOINT_HOST)", "--concurrency", "4", "--timeout", "5s"],
                 ["hookctl", "host", "show", "--host", "$(ENDPOINT_HOST)"],
                 ["hookctl", "host", "limit", "--host", "$(ENDPOINT_HOST)", "--default"],
                 "low", "one customer endpoint host", 10),
        ],
    },
    ("deploy-restore-previous-release", 1): {
        "title": "Roll a service back to its previous Helm release",
        "services": ["campaign-api", "segmentation-engine", "template-renderer", "send-scheduler",
                     "webhook-dispatcher", "click-tracker", "bounce-processor", "billing-meter"],
        "symptoms": ["5xx", "latency-spike", "error-rate"],
        "steps": [
            step("helm-rollback", "alpine/helm:3.15.2",
                 ["helm", "rollback", "$(SERVICE)", "0", "-n", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
                 ["helm", "history", "$(SERVICE)", "-n", "$(NAMESPACE)", "--max", "5"],
                 ["helm", "rollback", "$(SERVICE)", "$(CURRENT_REVISION)", "-n", "$(NAMESPACE)", "--wait"],
                 "medium", "one service", 300),
        ],
    },
}


def runbook_manifest(name, version):
    spec = RUNBOOK_VERSIONS[(name, version)]
    labels = {"recall.dev/revision": str(version)}
    return {"apiVersion": API, "kind": "Runbook",
            "metadata": {"name": name, "labels": labels}, "spec": spec}


# ---------------------------------------------------------------------------
# Architecture of the services a runbook acts on: a runbook fits only while
# its service runs on the architecture it was written for.
# ---------------------------------------------------------------------------
RUNBOOK_ARCH = {
    "pmta-pull-listed-ip": ("mta-pool", "powermta"),
    "kumomta-drain-listed-source": ("mta-pool", "kumomta"),
    "proxysql-shun-lagging-replica": ("contact-store", "mysql-proxysql"),
    "vitess-drain-lagging-tablet": ("contact-store", "vitess"),
}
ARCH_START = {"mta-pool": "powermta", "contact-store": "mysql-proxysql"}

MIGRATIONS = {
    "mta-pool-powermta-to-kumomta": {
        "at": "2025-08-18T06:00",
        "new_arch": ("mta-pool", "kumomta"),
        "spec": {
            "targetService": "mta-pool",
            "migrationDate": "2025-08-18",
            "oldArch": "PowerMTA 5.0 on 22 VMs; IP pools as virtual-mta pools in /etc/pmta/config; "
                       "accounting CSV files pulled by bounce-processor",
            "newArch": "KumoMTA on Kubernetes (one kumod StatefulSet per pool); egress sources and pools in "
                       "Lua policy, traffic shaping through the shaping service; delivery log streamed to Kafka",
            "impactedRunbooks": ["pmta-pull-listed-ip"],
            "impactedFixKeywords": ["disable-vmta", "disabled the virtual-mta", "reloaded PowerMTA"],
            "confidenceDeduction": 30,
        },
    },
    "contact-store-mysql-to-vitess": {
        "at": "2025-10-06T05:00",
        "new_arch": ("contact-store", "vitess"),
        "spec": {
            "targetService": "contact-store",
            "migrationDate": "2025-10-06",
            "oldArch": "Self-managed MySQL 8.0, 16 shards, each a primary and two replicas behind ProxySQL, "
                       "Orchestrator for failover",
            "newArch": "Vitess 21 on Kubernetes (vitess-operator), keyspace contacts with the same 16 shards, "
                       "reads routed by vtgate to replica tablets",
            "impactedRunbooks": ["proxysql-shun-lagging-replica"],
            "impactedFixKeywords": ["OFFLINE_SOFT", "ProxySQL hostgroup", "mysql_servers"],
            "confidenceDeduction": 30,
        },
    },
}

# ---------------------------------------------------------------------------
# Catalog timeline: (at, kind, payload). Contradictions name incidents whose
# outcomes must be recorded before they are applied (checked below).
# ---------------------------------------------------------------------------
CONTRA_C1 = "isp-queue-backlog-response"
CONTRA_C2 = "hard-bounce-spike-response"
CONTRA_C3 = "click-redirect-5xx-response"

CATALOG = [
    ("2025-03-01T00:00", "topology", TOPOLOGY_V1),
    ("2025-03-01T00:01", "runbook", ("mta-apply-isp-backoff", 1)),
    ("2025-03-01T00:02", "runbook", ("mta-scale-delivery-workers", 1)),
    ("2025-03-01T00:03", "runbook", ("pmta-pull-listed-ip", 1)),
    ("2025-03-01T00:04", "runbook", ("campaign-pause-sender-account", 1)),
    ("2025-03-01T00:05", "runbook", ("proxysql-shun-lagging-replica", 1)),
    ("2025-03-01T00:06", "runbook", ("click-tracker-scale-out", 1)),
    ("2025-03-01T00:07", "runbook", ("deploy-restore-previous-release", 1)),
    ("2025-03-18T10:00", "runbook", ("webhook-park-failing-endpoint", 1)),      # after es-0004
    ("2025-03-26T10:00", "contradiction", (CONTRA_C1, "open-1")),
    ("2025-04-04T09:00", "runbook", ("warmup-hold-ip-pool-step", 1)),          # after es-0008
    ("2025-04-20T09:00", "runbook", ("suppression-restore-misclassified-bounces", 1)),  # after es-0011
    ("2025-04-24T12:00", "contradiction", (CONTRA_C2, "open-1")),
    ("2025-04-28T09:00", "runbook", ("segmentation-cancel-runaway-query", 1)),  # after es-0013
    ("2025-05-12T10:00", "contradiction", (CONTRA_C1, "reconciled")),
    ("2025-05-26T09:00", "runbook", ("tracking-edge-challenge-link-scanners", 1)),  # after es-0019
    ("2025-06-06T09:00", "runbook", ("webhook-park-failing-endpoint", 2)),      # after es-0023
    ("2025-06-14T10:00", "contradiction", (CONTRA_C3, "open-1")),
    ("2025-07-01T10:00", "contradiction", (CONTRA_C3, "open-2")),
    ("2025-07-22T10:00", "contradiction", (CONTRA_C2, "reconciled")),
    ("2025-08-14T09:00", "runbook", ("kumomta-drain-listed-source", 1)),
    ("2025-08-17T09:00", "runbook", ("mta-apply-isp-backoff", 2)),
    ("2025-08-17T09:01", "runbook", ("mta-scale-delivery-workers", 2)),
    ("2025-08-17T09:02", "runbook", ("warmup-hold-ip-pool-step", 2)),
    ("2025-08-18T06:00", "migration", "mta-pool-powermta-to-kumomta"),
    ("2025-08-18T06:01", "topology", TOPOLOGY_V2),
    ("2025-10-02T09:00", "runbook", ("vitess-drain-lagging-tablet", 1)),
    ("2025-10-05T09:00", "runbook", ("segmentation-cancel-runaway-query", 2)),
    ("2025-10-06T05:00", "migration", "contact-store-mysql-to-vitess"),
]

CONTRADICTIONS = {
    (CONTRA_C1, "open-1"): {
        "topic": "ISP queue backlog on an IP pool: add delivery capacity or slow down",
        "memories": ["es-0001", "es-0003"],
        "claims": [
            {"memory": "es-0001", "claim": "the gmail.com backlog on shared-a cleared after adding delivery hosts "
                                           "and outbound connections"},
            {"memory": "es-0003", "claim": "adding delivery hosts made Gmail defer shared-b harder (421-4.7.28); "
                                           "only lowering the per-IP rate for gmail.com cleared the backlog"},
        ],
        "resolution": {"state": "open"},
    },
    (CONTRA_C1, "reconciled"): {
        "topic": "ISP queue backlog on an IP pool: add delivery capacity or slow down",
        "memories": ["es-0001", "es-0003", "es-0010"],
        "claims": [
            {"memory": "es-0001", "claim": "the gmail.com backlog on shared-a cleared after adding delivery hosts "
                                           "and outbound connections"},
            {"memory": "es-0003", "claim": "adding delivery hosts made Gmail defer shared-b harder (421-4.7.28); "
                                           "only lowering the per-IP rate for gmail.com cleared the backlog"},
            {"memory": "es-0010", "claim": "lowering the gmail.com rate on shared-a doubled the backlog while Gmail "
                                           "was accepting 99%; adding hosts cleared it"},
        ],
        "resolution": {"state": "reconciled",
                       "note": "Both fixes hold, under different conditions. Look at the ISP's answers first. "
                               "If the ISP is deferring the pool (4xx such as 421-4.7.28, TSS04, 451 4.7.650 on "
                               "more than about 5% of attempts), the ISP is throttling us: run "
                               "mta-apply-isp-backoff for that ISP on that pool and never add capacity (es-0003). "
                               "If deferrals stay low (about 1%) and every delivery host has its connections for "
                               "the ISP in use while the oldest message gets older, the bottleneck is ours: run "
                               "mta-scale-delivery-workers; slowing down there only deepens the backlog (es-0010)."},
    },
    (CONTRA_C2, "open-1"): {
        "topic": "hard bounce spike: stop the sender or fix the classification",
        "memories": ["es-0005", "es-0011"],
        "claims": [
            {"memory": "es-0005", "claim": "the spike came from one account mailing an old list; stopping that "
                                           "account's sending ended it"},
            {"memory": "es-0011", "claim": "stopping the account with the most bounces changed nothing; the "
                                           "classifier was marking an Outlook policy block as hard bounces for "
                                           "every account, and the fix was to re-classify and remove the wrong "
                                           "suppressions"},
        ],
        "resolution": {"state": "open"},
    },
    (CONTRA_C2, "reconciled"): {
        "topic": "hard bounce spike: stop the sender or fix the classification",
        "memories": ["es-0005", "es-0011", "es-0027"],
        "claims": [
            {"memory": "es-0005", "claim": "the spike came from one account mailing an old list; stopping that "
                                           "account's sending ended it"},
            {"memory": "es-0011", "claim": "stopping the account with the most bounces changed nothing; the "
                                           "classifier was marking an Outlook policy block as hard bounces for "
                                           "every account, and the fix was to re-classify and remove the wrong "
                                           "suppressions"},
            {"memory": "es-0027", "claim": "re-classifying and removing suppressions for a bouncing account "
                                           "re-mailed dead addresses and hit a spam trap; stopping the account "
                                           "was the fix"},
        ],
        "resolution": {"state": "reconciled",
                       "note": "Two different failures share the symptom. One account, 'mailbox does not exist' "
                               "codes (5.1.1, 5.1.10, Yahoo 'dd') spread over many domains, often with trap hits: "
                               "the list is bad; run campaign-pause-sender-account and never remove those "
                               "suppressions (es-0027). Many accounts at once, concentrated on one ISP or one "
                               "response text that is not a no-such-user code (policy blocks, over-quota), "
                               "suppression adds spiking, often right after a classifier change: the classifier "
                               "is wrong; run suppression-restore-misclassified-bounces; stopping accounts does "
                               "nothing there (es-0011)."},
    },
    (CONTRA_C3, "open-1"): {
        "topic": "click redirect 5xx during a large send: add click-tracker capacity or stop link scanners at the edge",
        "memories": ["es-0015", "es-0019"],
        "claims": [
            {"memory": "es-0015", "claim": "click-tracker pods were at their CPU limit during a big launch; more "
                                           "replicas ended the 5xx"},
            {"memory": "es-0019", "claim": "doubling replicas did nothing; the traffic was mail-security scanners "
                                           "fetching every link, and answering them at the edge ended the 5xx"},
        ],
        "resolution": {"state": "open"},
    },
    (CONTRA_C3, "open-2"): {
        "topic": "click redirect 5xx during a large send: add click-tracker capacity or stop link scanners at the edge",
        "memories": ["es-0015", "es-0019", "es-0029"],
        "claims": [
            {"memory": "es-0015", "claim": "click-tracker pods were at their CPU limit during a big launch; more "
                                           "replicas ended the 5xx"},
            {"memory": "es-0019", "claim": "doubling replicas did nothing; the traffic was mail-security scanners "
                                           "fetching every link, and answering them at the edge ended the 5xx"},
            {"memory": "es-0029", "claim": "the edge scanner rule made things worse for a consumer send (real "
                                           "readers got the interstitial); more replicas fixed it"},
        ],
        "resolution": {"state": "open"},
    },
}

# ---------------------------------------------------------------------------
# Failure families. A family is one failure under one condition; `fixes` are
# the runbooks that fix it, in the order the catalog offers them (the right one
# at a given time is the first that exists, is not stale and fits the current
# architecture). One-offs are families with one incident.
# ---------------------------------------------------------------------------
FAMILIES = {
    "MTACAP": {"what": "IP pool's own outbound connection cap reached during a peak; the ISP accepts normally",
               "fixes": ["mta-scale-delivery-workers"], "contradiction": CONTRA_C1},
    "ISPDEFER": {"what": "an ISP throttles an IP pool with 4xx deferrals after a reputation or volume change",
                 "fixes": ["mta-apply-isp-backoff"], "contradiction": CONTRA_C1},
    "WARMUP": {"what": "a new dedicated IP pool sends far above its warm-up step; ISPs defer only that pool",
               "fixes": ["warmup-hold-ip-pool-step"]},
    "LISTED": {"what": "a shared sending IP lands on a DNS blocklist; receivers using it reject mail from that IP",
               "fixes": ["pmta-pull-listed-ip", "kumomta-drain-listed-source"]},
    "BLOCKMIS": {"what": "the bounce classifier marks non-permanent or policy responses as hard bounces; "
                         "valid addresses of many accounts get suppressed",
                 "fixes": ["suppression-restore-misclassified-bounces"], "contradiction": CONTRA_C2},
    "BADLIST": {"what": "one account mails an old or bought list; real no-such-user bounces across many domains",
                "fixes": ["campaign-pause-sender-account"], "contradiction": CONTRA_C2},
    "REPLAG": {"what": "a contact-store replica falls far behind and keeps serving reads: stale counts, "
                       "missing new contacts",
               "fixes": ["proxysql-shun-lagging-replica", "vitess-drain-lagging-tablet"]},
    "RUNAWAY": {"what": "one customer's segment compiles to a full scan that pins a shard primary; "
                        "segment builds time out for every tenant on that shard",
                "fixes": ["segmentation-cancel-runaway-query"]},
    "SCANNER": {"what": "mail-security gateways prefetch every link right after delivery; click-tracker origin "
                        "overwhelmed by non-human requests",
                "fixes": ["tracking-edge-challenge-link-scanners"], "contradiction": CONTRA_C3},
    "CLICKLOAD": {"what": "a real human click surge after a large send; click-tracker pods at CPU limit",
                  "fixes": ["click-tracker-scale-out"], "contradiction": CONTRA_C3},
    "WEBHOOK": {"what": "one customer's slow webhook endpoint occupies the shared dispatcher workers",
                "fixes": ["webhook-park-failing-endpoint"]},
    "ONE-HTTPCLIENT": {"what": "webhook-dispatcher release without connection reuse exhausts egress NAT ports",
                       "fixes": ["deploy-restore-previous-release"]},
    "ONE-DMARC": {"what": "a customer's DNS move dropped the DKIM CNAME; Gmail rejects its mail under DMARC",
                  "fixes": []},
    "ONE-MXDNS": {"what": "mx-resolver lost its upstream DNS egress; MX lookups for uncached domains fail",
                  "fixes": []},
}

NS = {"mta-pool": "delivery", "send-queue": "delivery", "bounce-processor": "delivery",
      "suppression-service": "contacts", "contact-store": "contacts", "segmentation-engine": "contacts",
      "campaign-api": "app", "click-tracker": "tracking", "tracking-edge": "tracking",
      "webhook-dispatcher": "integrations"}
TEAM = {"delivery": "deliverability-ops", "contacts": "data-platform", "app": "app-platform",
        "tracking": "tracking", "integrations": "integrations"}

INCIDENTS = []


def P(iid, at, fam, svc, sev, alert, alabels, ann, *, sym=(), err=(), dep=None, start=12, tried=(),
      fix="", delay=None, cause="", summary="", by="", region="us-east-1", firing=1, repage_of=None):
    """An alert page as the Alertmanager bridge writes it."""
    ns = NS[svc]
    lbl = " ".join("%s=%s" % kv for kv in alabels.items())
    title = "[FIRING:%d] %s %s (%s)" % (firing, alert, svc, lbl) if lbl else "[FIRING:%d] %s %s" % (firing, alert, svc)
    labels = {"source": "alertmanager", "alertname": alert, "severity": sev, "namespace": ns,
              "team": TEAM[ns], "cluster": "prod-use1" if region == "us-east-1" else "prod-euw1",
              "region": region}
    labels.update(alabels)
    INCIDENTS.append(dict(id=iid, at=ts(at), fam=fam, svc=svc, sev=sev, style="page", title=title,
                          desc=ann, sym=list(sym), err=list(err), labels=labels, dep=dep, start=start,
                          tried=list(tried), fix=fix, delay=delay, cause=cause, summary=summary, by=by,
                          repage_of=repage_of))


def H(iid, at, fam, svc, sev, title, desc, *, source, reporter, sym=(), err=(), dep=None, start=30,
      tried=(), fix="", delay=None, cause="", summary="", by="", region="us-east-1", extra=None, repage_of=None):
    """A report written by a person (deliverability engineer, support, on-call)."""
    labels = {"source": source, "reporter": reporter, "team": TEAM[NS[svc]], "region": region}
    if extra:
        labels.update(extra)
    INCIDENTS.append(dict(id=iid, at=ts(at), fam=fam, svc=svc, sev=sev, style="human", title=title,
                          desc=desc, sym=list(sym), err=list(err), labels=labels, dep=dep, start=start,
                          tried=list(tried), fix=fix, delay=delay, cause=cause, summary=summary, by=by,
                          repage_of=repage_of))


def dep(did, rev, mins):
    return {"id": did, "revision": rev, "environment": "production", "minutesSinceDeploy": mins}


RB_BACKOFF = "mta-apply-isp-backoff"
RB_SCALE = "mta-scale-delivery-workers"
RB_WARMUP = "warmup-hold-ip-pool-step"
RB_PMTA = "pmta-pull-listed-ip"
RB_KUMO = "kumomta-drain-listed-source"
RB_PAUSE = "campaign-pause-sender-account"
RB_RESTORE = "suppression-restore-misclassified-bounces"
RB_PROXYSQL = "proxysql-shun-lagging-replica"
RB_VITESS = "vitess-drain-lagging-tablet"
RB_CANCEL = "segmentation-cancel-runaway-query"
RB_CLICKSCALE = "click-tracker-scale-out"
RB_SCANNER = "tracking-edge-challenge-link-scanners"
RB_WEBHOOK = "webhook-park-failing-endpoint"
RB_DEPLOY = "deploy-restore-previous-release"

# ---------------------------------------------------------------------------
# Incidents, in time order. `tried` lists actions that did not work before the
# fix (runbook name or None for a manual action, text, result). `fix` details
# the action that worked: the family's right runbook when there is one at that
# time, otherwise a manual fix.
# ---------------------------------------------------------------------------
P("es-0001", "2025-03-03T14:20", "MTACAP", "mta-pool", "high", "IspQueueDepthHigh",
  {"isp": "gmail.com", "pool": "shared-a"},
  "gmail.com queue on shared-a at 412k messages, oldest 38m; deferral ratio 0.01",
  sym=["queue-backlog"], start=9,
  fix="shared-a from 8 to 12 delivery hosts, gmail.com max-smtp-out 400 -> 600 per host",
  delay=75, by="oncall-mika",
  cause="Monday campaign peak: shared-a ran out of outbound gmail.com connections while Gmail accepted at normal speed",
  summary="The gmail.com queue on shared-a grew to 412k during the Monday 14:00 campaign peak. Gmail answered 250 "
          "to 99% of attempts, but every delivery host had all of its gmail.com connections busy. Adding four "
          "delivery hosts and raising the connection limit emptied the queue within the hour.")

H("es-0002", "2025-03-06T16:05", "REPLAG", "segmentation-engine", "high",
  "Segment counts off by thousands right after imports",
  "Three tickets in an hour (Hollowfen Outdoors, Caskmere Wines, Peakform Fitness). Segment preview says 18,240 "
  "contacts, the audience screen for the same segment says 16,902, and contacts imported 20 minutes ago are not in "
  "'joined in the last day'. All three accounts live on shard 07. campaign-api shipped at 15:40, which is my first "
  "suspect.",
  source="support-ticket", reporter="support-rosa", sym=["stale-reads", "data-inconsistency"],
  err=["SegmentCountMismatch preview=18240 audience=16902 account=40112 shard=07"],
  dep=dep("campaign-api-2025.03.06-1", "c7e19a2", 25), start=40,
  tried=[(RB_DEPLOY, "run runbook deploy-restore-previous-release: campaign-api 2025.03.06-1 -> 2025.03.04-2; "
                     "counts still disagreed", "failed")],
  fix="db-07b set OFFLINE_SOFT in ProxySQL hostgroup 20 and max_replication_lag 30s set on the hostgroup",
  delay=180, by="oncall-ravi",
  cause="replica db-07b of shard 07 was 41 minutes behind after an online ALTER on the primary; ProxySQL had no "
        "lag limit on the read hostgroup, so segment and audience reads kept going to it",
  summary="Segment previews and audiences disagreed for accounts on shard 07 and fresh imports were missing. The "
          "campaign-api release 25 minutes earlier looked guilty, but going back to the previous release changed "
          "nothing. The replica db-07b was 41 minutes behind; taking it out of the ProxySQL read hostgroup made "
          "counts agree within a minute, and the replica caught up 50 minutes later.")

P("es-0003", "2025-03-11T09:40", "ISPDEFER", "mta-pool", "critical", "DeliveryRateLow",
  {"isp": "gmail.com", "pool": "shared-b"},
  "gmail.com delivered/attempted on shared-b 0.54 over 15m; deferral ratio 0.44", start=14,
  tried=[(RB_SCALE, "run runbook mta-scale-delivery-workers: shared-b 10 -> 14 hosts; deferrals rose from 31% "
                    "to 58%", "failed")],
  fix="gmail.com limited to 180 messages/min and 4 connections per IP on shared-b, queue put in backoff mode; "
      "deferred mail went out over the next three hours",
  delay=240, by="dlv-amara",
  cause="Gmail rate-limited shared-b (421-4.7.28) after two new senders on the pool raised its complaint rate; "
        "more connections made the deferrals worse",
  summary="Gmail started deferring shared-b at 09:25 with 421-4.7.28 'unusual rate of unsolicited mail'. On-call "
          "added delivery hosts, and the deferral share went from 31% to 58%. Lowering the per-IP rate and "
          "connection count for gmail.com on the pool let the deferrals fall under 5% within 90 minutes; two new "
          "senders on shared-b were moved to a probation pool.")

H("es-0004", "2025-03-14T19:12", "WEBHOOK", "webhook-dispatcher", "high",
  "Webhook events 40+ minutes late for every customer",
  "Integrations pinged: open and click webhooks are landing 40-55 min late across accounts. All dispatcher "
  "workers are busy and nearly every one is sitting in a 30s POST to hooks.saltmarsh-travel.example, which "
  "started timing out around 18:30. Retry queue at 2.1M and climbing.",
  source="slack", reporter="oncall-sven", sym=["webhook-backlog", "timeout", "latency-spike"],
  err=["POST https://hooks.saltmarsh-travel.example/fernpost: context deadline exceeded "
       "(Client.Timeout exceeded while awaiting headers)"], start=42,
  fix="set Saltmarsh Travel's three subscriptions to disabled in the dispatcher database and copied their pending "
      "events to a side queue; replayed them by hand after their endpoint came back at 23:10",
  delay=150, by="oncall-sven",
  cause="one customer endpoint timing out at 30s occupied the shared worker pool; the dispatcher had no "
        "per-endpoint concurrency limit",
  summary="Webhook delivery for all customers fell 40-55 minutes behind because one customer's endpoint hung for "
          "30 seconds per request and the workers are shared. Disabling that customer's subscriptions by hand in "
          "the database (and keeping their events aside) freed the workers; the backlog cleared in 35 minutes. "
          "A runbook to do this safely was written afterwards.")

P("es-0005", "2025-03-19T13:30", "BADLIST", "bounce-processor", "high", "AccountHardBounceRateHigh",
  {"account": "52004"},
  "account 52004 hard bounce rate 14.2% over 30m (limit 5%)", sym=["hard-bounce-spike"], start=6,
  fix="all sending stopped for account 52004, its two scheduled campaigns stopped, compliance review opened",
  delay=50, by="dlv-tobias",
  cause="Orchardline Grocers uploaded a 2019 loyalty export (310k addresses) and mailed it the same day; 5.1.1 "
        "no-such-user across every large domain and two spam-trap hits",
  summary="One account (Orchardline Grocers) mailed a six-year-old loyalty export. Hard bounces were real "
          "no-such-user answers spread over hundreds of domains, plus two trap hits. Stopping the account's "
          "sending ended the spike; the customer re-imported only contacts active in the last 18 months.")

H("es-0006", "2025-03-24T08:15", "LISTED", "mta-pool", "high",
  "203.0.113.37 on Spamhaus CSS, Comcast and Cox refusing shared-c mail from it",
  "Morning check: 203.0.113.37 (shared-c) has been on the CSS since about 02:00. Comcast, Cox and a long tail of "
  "smaller MX that query zen refuse everything from that IP, roughly 6% of shared-c volume. The other 11 IPs of "
  "the pool are clean.",
  source="slack", reporter="dlv-tobias", sym=["blocklist-listing", "smtp-5xx-rejections"],
  err=["554 5.7.1 Service unavailable; Client host [203.0.113.37] blocked using zen.spamhaus.org"], start=75,
  fix="disabled the virtual-mta for 203.0.113.37 in shared-c and reloaded PowerMTA; delisting request filed",
  delay=100, by="dlv-tobias",
  cause="203.0.113.37 listed on the Spamhaus CSS after a snowshoe-looking burst from a new sender on shared-c",
  summary="One IP of shared-c was on the Spamhaus CSS; receivers using zen refused its mail. Taking the IP out of "
          "the PowerMTA pool moved its traffic to the other 11 IPs at once, and the delisting request cleared the "
          "listing 27 hours later. The new sender behind the burst was moved to a probation pool.")

P("es-0007", "2025-03-27T21:40", "ISPDEFER", "mta-pool", "high", "IspQueueDepthHigh",
  {"isp": "yahoo.com", "pool": "shared-a"},
  "yahoo.com queue on shared-a at 268k, oldest 52m; deferral ratio 0.37",
  err=["421 4.7.0 [TSS04] Messages from 198.51.100.14 temporarily deferred due to unexpected volume or user "
       "complaints - 4.16.55.1"], start=10,
  fix="yahoo.com limited to 2 connections and 120 messages/min per IP on shared-a",
  delay=130, by="oncall-jo",
  cause="Yahoo deferred shared-a with TSS04 after a new sender's evening campaign raised complaints",
  summary="Yahoo answered TSS04 to a third of shared-a's attempts after an evening campaign from a new sender drew "
          "complaints. Lowering the yahoo.com rate on the pool brought deferrals under 3% in 80 minutes and the "
          "queue emptied overnight.")

H("es-0008", "2025-04-01T11:05", "WARMUP", "mta-pool", "high",
  "Brightloom's new dedicated IPs getting throttled hard at Outlook and Yahoo",
  "ded-brightloom (4 new IPs, day 9 of warm-up) pushed 1.1M yesterday instead of ~90k. Outlook answers 451 4.7.500 "
  "S77719 to almost everything from those IPs, Yahoo says TSS04. Looks like the day-19 row of the warm-up table got "
  "copied in when the pool was created. Gmail is still accepting for now, and the shared pools look normal.",
  source="slack", reporter="dlv-keiko", sym=["smtp-4xx-deferrals", "delivery-rate-drop", "ip-reputation"],
  err=["451 4.7.500 Server busy. Please try again later from [192.0.2.71]. (S77719)",
       "421 4.7.0 [TSS04] Messages from 192.0.2.72 temporarily deferred"], start=90,
  tried=[(RB_BACKOFF, "run runbook mta-apply-isp-backoff for outlook.com and yahoo.com on ded-brightloom: fewer "
                      "deferrals, but the pool still tried 1M a day", "partial")],
  fix="edited the ded-brightloom warm-up table back to the day-9 step (90k/day) by hand, set shared-b as its overflow "
      "pool and restarted the warm-up clock at day 9",
  delay=1405, by="dlv-keiko",
  cause="the pool was created from a template carrying the day-19 volume step; four cold IPs sent 12x their "
        "warm-up volume",
  summary="Four new dedicated IPs sent twelve times their warm-up volume because the pool was created with the "
          "wrong step. Lowering the ISP rates helped only partly. Putting the pool back on its day-9 step by hand "
          "and sending the overflow through shared-b stopped the deferrals over the next day.")

P("es-0009", "2025-04-06T03:50", "REPLAG", "contact-store", "high", "MySQLReplicaLagHigh",
  {"shard": "11", "instance": "db-11a"},
  "Seconds_Behind_Source 1140 on db-11a (threshold 300)", sym=["replica-lag"], start=8,
  fix="db-11a set OFFLINE_SOFT in ProxySQL; reads of shard 11 on db-11b until db-11a caught up",
  delay=70, by="oncall-mika",
  cause="the nightly erasure job deleted 9M rows on shard 11 in one transaction; replica db-11a applied it in one "
        "thread",
  summary="A single 9M-row delete from the nightly erasure job left db-11a 19 minutes behind. Taking it out of the "
          "ProxySQL read hostgroup sent reads to db-11b; db-11a caught up in 40 minutes. The erasure job was "
          "changed to delete in batches of 50k.")

H("es-0010", "2025-04-10T07:25", "MTACAP", "mta-pool", "high",
  "Gmail backlog on shared-a growing even though Gmail takes everything",
  "Monday 07:00 batch, about 5.4M to gmail.com from shared-a. Queue went from 80k to 530k in 20 minutes. Gmail "
  "answers are 250s, deferrals 0.6%. Every delivery host shows its gmail.com connection limit fully used.",
  source="oncall-report", reporter="oncall-ravi", sym=["queue-backlog", "delivery-rate-drop", "connection-exhaustion"],
  start=25,
  tried=[(RB_BACKOFF, "run runbook mta-apply-isp-backoff for gmail.com on shared-a (after reading es-0003); the "
                      "queue went to 1.1M", "failed")],
  fix="shared-a from 8 to 12 delivery hosts, gmail.com max-smtp-out 400 -> 600 per host",
  delay=180, by="oncall-ravi",
  cause="our own outbound connection cap for gmail.com on shared-a; Gmail was not throttling",
  summary="A Monday batch to Gmail overran shared-a's outbound connections while Gmail accepted 99% of attempts. "
          "On-call first lowered the gmail.com rate, which es-0003 had recommended, and the queue doubled. Adding "
          "hosts and connections cleared it in 90 minutes.")

P("es-0011", "2025-04-15T17:45", "BLOCKMIS", "suppression-service", "critical", "SuppressionAddsSpike",
  {"reason": "hard_bounce"},
  "hard_bounce suppressions 48,310 in 1h (baseline 2,100)", sym=["suppression-spike"],
  dep=dep("bounce-processor-rules-2025.04.15", "rules@5b0e7d1", 62), start=15,
  tried=[(RB_PAUSE, "run runbook campaign-pause-sender-account for account 27719, the account with the most new "
                    "suppressions; adds kept coming from 300 other accounts", "failed")],
  fix="pinned the classifier to rules 2025.04.01 by hand, re-ran the last six hours of bounces through it and "
      "deleted 61,204 wrong hard_bounce suppressions with a one-off script; the Outlook block itself was lifted "
      "after a request through Microsoft's sender support",
  delay=2880, by="dlv-amara",
  cause="bounce rules 2025.04.15 mapped Outlook's '550 5.7.1 ... (S3150)' network block to hard bounce, so every "
        "outlook.com and hotmail.com address that met the block was suppressed, across 300+ accounts",
  summary="Microsoft blocked part of shared-c with S3150, and that morning's bounce-rule release classified the "
          "block as a hard bounce, suppressing 61k valid Outlook addresses across 300 accounts. Stopping the "
          "largest sender did nothing. Pinning the previous rules, re-classifying and deleting the wrong "
          "suppressions fixed the data; a runbook for this was written afterwards.")

P("es-0012", "2025-04-18T12:30", "WEBHOOK", "webhook-dispatcher", "high", "WebhookDeliveryLatencyHigh",
  {"quantile": "0.95"},
  "p95 event-to-delivery 26m (SLO 2m)", start=11,
  fix="subscription sub_4471 (api.peakform.example/hooks, HTTP 503 after 30s) set aside with its events spooled; "
      "replayed at 17:05",
  delay=60, by="oncall-jo",
  cause="Peakform's webhook endpoint answered 503 after 30 seconds during their own outage",
  summary="One endpoint answering 503 after 30s filled the shared dispatcher workers. Setting that subscription "
          "aside with the new runbook cleared the delay in 12 minutes; its events were replayed once Peakform "
          "recovered.")

P("es-0013", "2025-04-22T10:10", "RUNAWAY", "segmentation-engine", "high", "SegmentBuildSlow",
  {"shard": "03"},
  "p90 segment build 212s on shard 03 (normal 9s)", start=18,
  tried=[(RB_PROXYSQL, "run runbook proxysql-shun-lagging-replica for db-03b; no change, replica lag was 2s",
          "failed")],
  fix="KILL QUERY 88412 on the db-03 primary and set the customer's segment to needs-review by hand",
  delay=120, by="oncall-ravi",
  cause="one account's segment with 14 ORs over custom fields and a leading-wildcard LIKE compiled to a full scan "
        "of contact_fields (220M rows) on shard 03's primary, re-run every five minutes by a recurring automation",
  summary="Segment builds on shard 03 took minutes for every tenant. It looked like replica lag, but the replicas "
          "were current and segment builds read from the primary. One customer's segment was scanning 220M rows "
          "every five minutes; killing the query and stopping its recurring build brought builds back to 9s.")

H("es-0014", "2025-04-25T15:00", "ISPDEFER", "mta-pool", "high",
  "Microsoft deferring shared-c since lunch, 4.7.650",
  "outlook.com/hotmail.com acceptance on shared-c dropped from 97% to 63% around 12:40. Responses are 451 4.7.650 "
  "'temporarily rate limited due to IP reputation' on 9 of 12 IPs. SNDS shows yellow for those nine. Complaint rate "
  "on the pool rose yesterday after Lumen & Lark's flash sale.",
  source="slack", reporter="dlv-amara",
  sym=["smtp-4xx-deferrals", "delivery-rate-drop", "complaint-rate", "ip-reputation"],
  err=["451 4.7.650 The mail server [203.0.113.52] has been temporarily rate limited due to IP reputation. (S775)"],
  start=140,
  fix="outlook.com limited to 60 messages/min and 2 connections per IP on shared-c for six hours",
  delay=300, by="dlv-amara",
  cause="Microsoft rate-limited nine shared-c IPs on reputation after complaints from a flash sale",
  summary="Microsoft throttled nine shared-c IPs with 4.7.650 after a flash sale drew complaints. Lowering the "
          "outlook.com rate on the pool let deferrals fall under 5% by 18:30; SNDS was green again two days "
          "later.")

P("es-0015", "2025-05-01T18:20", "CLICKLOAD", "click-tracker", "high", "ClickRedirect5xx",
  {"region": "us-east-1"},
  "5xx ratio on /c/ redirects 7.4% over 5m", start=5,
  fix="click-tracker 14 -> 30 replicas and HPA maximum 30 -> 60",
  delay=45, by="oncall-mika",
  cause="Quillpress's 2.3M-recipient book launch: real clicks peaked at 5.1k/s, pods at their CPU limit and the HPA "
        "at its maximum of 30",
  summary="A big consumer launch produced a genuine click peak of 5.1k/s. click-tracker pods were at their CPU "
          "limit and the autoscaler at its ceiling. Adding replicas and raising the ceiling ended the 5xx in six "
          "minutes.")

H("es-0016", "2025-05-05T14:45", "BADLIST", "campaign-api", "medium",
  "Ticket: Novafeet asks why their last campaign shows 11% bounces",
  "Novafeet (acct 60571) sent 'May markdowns' to 'All contacts incl. archive' this morning. The report shows 11.3% "
  "bounced, mostly 'mailbox does not exist' at gmail, yahoo, aol and a lot of small domains. They uploaded a CSV "
  "from their old POS on Friday. A second wave of the same campaign is scheduled for 16:00.",
  source="support-ticket", reporter="support-rosa", sym=["hard-bounce-spike", "complaint-rate"],
  err=["550 5.1.1 The email account that you tried to reach does not exist.",
       "554 delivery error: dd This user doesn't have a yahoo.com account"], start=60,
  fix="all sending stopped for account 60571 including the 16:00 wave; compliance review opened",
  delay=60, by="dlv-tobias",
  cause="Novafeet imported an old POS export and mailed it; real no-such-user bounces across many domains",
  summary="Novafeet mailed an old point-of-sale export and bounced 11% on genuine no-such-user answers. Stopping "
          "the account before the 16:00 wave prevented a second round; the list was cleaned with the customer.")

H("es-0017", "2025-05-08T06:30", "LISTED", "bounce-processor", "high",
  "Barracuda listing on shared-b, block bounces up",
  "Block-class bounces on shared-b are 9.8% since about 05:00, nearly all from one IP: 198.51.100.29 is on "
  "b.barracudacentral.org. Mostly small business domains and universities.",
  source="slack", reporter="dlv-keiko", sym=["blocklist-listing", "smtp-5xx-rejections"],
  err=["550 permanent failure for one or more recipients - 198.51.100.29 blocked using b.barracudacentral.org"],
  start=85,
  fix="disabled the virtual-mta for 198.51.100.29 in shared-b and reloaded PowerMTA; Barracuda removal request filed",
  delay=120, by="dlv-keiko",
  cause="198.51.100.29 listed by Barracuda after a sender on shared-b mailed a scraped list of university addresses",
  summary="Barracuda listed one shared-b IP. Taking it out of the PowerMTA pool moved traffic to clean IPs; "
          "Barracuda removed the listing the next morning and the sender's scraped segment was deleted.")

H("es-0018", "2025-05-13T11:20", "BLOCKMIS", "bounce-processor", "high",
  "Bounce classifier calling Yahoo 'over quota' a hard bounce",
  "Spot check of today's suppressions: 7,900 yahoo.com/aol.com addresses suppressed as hard since 08:00, and the "
  "raw answers are '552 5.2.2 Mailbox over quota'. Those are soft. It is spread over ~120 accounts. I think Yahoo "
  "changed the wording this morning and our soft rule stopped matching.",
  source="slack", reporter="dlv-tobias", sym=["suppression-spike", "hard-bounce-spike"],
  err=["552 5.2.2 Mailbox over quota - user storage full"], start=180,
  fix="classifier pinned to rules 2025.05.02, bounces since 08:00 re-classified, 8,140 wrong suppressions removed",
  delay=180, by="dlv-tobias",
  cause="Yahoo changed its over-quota wording; the soft rule stopped matching and the answers fell through to the "
        "generic 55x-is-hard default",
  summary="A wording change in Yahoo's over-quota answer made the classifier suppress 8k valid addresses across "
          "120 accounts. Pinning the rules, re-classifying the morning's bounces and removing the wrong "
          "suppressions fixed it; the soft rule now matches on the enhanced code 5.2.2.")

H("es-0019", "2025-05-16T13:05", "SCANNER", "click-tracker", "high",
  "Click redirects throwing 502s the minute big sends go out; more replicas didn't help",
  "Tidewell's policy-renewal send (600k, mostly corporate domains) left at 12:50; by 12:52 /c/ redirects were 502ing "
  "at the edge and click-tracker p99 hit 9s. We went from 20 to 40 replicas at 12:58: per-pod CPU dropped, 5xx "
  "stayed at 6%. Request rate is 48k/s, ~40x what that send should produce. Most requests come from a handful of "
  "ASNs, carry no cookies and arrive within seconds of delivery.",
  source="oncall-report", reporter="oncall-jo", sym=["5xx", "latency-spike", "bot-traffic", "click-inflation"],
  err=["upstream prematurely closed connection while reading response header from upstream",
       "click-tracker: link lookup rate limit exceeded for campaign 88120"], start=15,
  tried=[(RB_CLICKSCALE, "run runbook click-tracker-scale-out: 20 -> 40 replicas; 5xx unchanged at 6%", "failed")],
  fix="added a CDN rule by hand for the security-gateway ASNs: answer with a cached 200 page without reaching the "
      "origin and do not count the request as a click",
  delay=7200, by="trk-nadia",
  cause="corporate mail-security gateways fetched every link of every delivered message within seconds; the "
        "per-campaign link lookup in click-tracker became a hot key",
  summary="A send to corporate mailboxes triggered link prefetching by mail-security gateways at 40x the expected "
          "rate, concentrated on one campaign's link lookup. More replicas did nothing because the hot key, not "
          "CPU, was the limit. Answering those ASNs at the edge ended the 5xx in two minutes and removed the fake "
          "clicks from the report; the review took until the next week and produced a runbook.")

P("es-0020", "2025-05-20T07:40", "MTACAP", "send-queue", "high", "SendQueueBacklogHigh",
  {"queue": "delivery.gmail"},
  "delivery.gmail ready messages 2.9M for 15m; gmail.com deferral ratio 0.01", start=16,
  fix="shared-a and shared-b each +4 delivery hosts, gmail.com max-smtp-out 600 -> 800",
  delay=120, by="oncall-mika",
  cause="a Tuesday send peak exceeded both shared pools' gmail.com connection caps; RabbitMQ backed up behind the MTA",
  summary="Ready messages for Gmail piled up in send-queue because the MTA pools could not take them fast enough: "
          "Gmail accepted 99% and the pools' connections were all busy. Adding delivery hosts to both shared pools "
          "emptied the queue in 70 minutes.")

P("es-0021", "2025-05-23T10:30", "WARMUP", "mta-pool", "high", "DeliveryRateLow",
  {"isp": "outlook.com", "pool": "ded-caskmere"},
  "outlook.com delivered/attempted on ded-caskmere 0.38 over 15m; pool age 6d", start=20,
  fix="ded-caskmere pinned at its day-6 step (40k/day) with shared-c as overflow",
  delay=180, by="dlv-keiko",
  cause="support raised ded-caskmere's daily cap on day 6 of warm-up at the customer's request for an allocation "
        "release",
  summary="A six-day-old dedicated pool was allowed to send a full allocation release; Outlook deferred most of it. "
          "Pinning the pool to its warm-up step and sending the rest through shared-c cleared the deferrals; the "
          "cap is now only changeable by deliverability.")

H("es-0022", "2025-05-28T15:15", "REPLAG", "campaign-api", "medium",
  "API: contacts created via POST /v3/contacts return 404 on GET for a few minutes",
  "Greywick Bank's integration creates a contact and reads it back straight away. Since ~14:30 about a third of "
  "those reads 404 for 5-15 minutes, then the contact shows up. Their account is on shard 02. Nothing changed on "
  "their side.",
  source="support-ticket", reporter="support-dev", sym=["stale-reads", "4xx"],
  err=["GET /v3/contacts/c_9f21ab 404 contact_not_found account=15537"], start=45,
  fix="db-02c set OFFLINE_SOFT in ProxySQL; the lag limit on the hostgroup was found reset to 0 and set to 30s again",
  delay=90, by="oncall-ravi",
  cause="db-02c was 12 minutes behind after an index build; a ProxySQL config push had reset max_replication_lag "
        "to 0",
  summary="Contacts created through the API were missing on immediate reads for accounts on shard 02 because one "
          "replica was 12 minutes behind and still served reads. Taking it out of the read hostgroup fixed the "
          "404s; the lag limit, lost in a config push, was put back.")

H("es-0023", "2025-06-02T20:10", "WEBHOOK", "webhook-dispatcher", "high",
  "Webhook backlog again, one customer with dozens of hook URLs on the same host",
  "p95 webhook delay 35 min. hooks.marrowbone-pet.example answers in 25-30s. They have 42 subscriptions (one per "
  "store), all on that host, so the worker pool is full of them.",
  source="oncall-report", reporter="oncall-sven", sym=["webhook-backlog", "timeout"], start=25,
  tried=[(RB_WEBHOOK, "run runbook webhook-park-failing-endpoint for the five slowest subscriptions; the other 37 "
                      "on the same host kept the workers busy", "partial")],
  fix="added a host-level block for hooks.marrowbone-pet.example to the dispatcher config by hand, covering all 42 "
      "subscriptions",
  delay=240, by="oncall-sven",
  cause="Marrowbone Pet's webhook host slowed to 25-30s; its 42 subscriptions together occupied the worker pool",
  summary="A customer with 42 subscriptions on one slow host filled the dispatcher. The runbook sets aside one "
          "subscription at a time, which only partly helped; blocking the whole host in config cleared the "
          "backlog in 20 minutes. The runbook was revised to work per host.")

P("es-0024", "2025-06-04T09:00", "ISPDEFER", "mta-pool", "high", "DeferralRateHigh",
  {"isp": "gmail.com", "pool": "shared-a"},
  "4xx deferrals 41% of gmail.com attempts on shared-a over 15m", sym=["smtp-4xx-deferrals"], start=12,
  fix="gmail.com limited to 200 messages/min and 4 connections per IP on shared-a, queue in backoff mode",
  delay=180, by="oncall-mika",
  cause="Gmail throttled shared-a with 421-4.7.28 after a re-engagement campaign to dormant contacts",
  summary="A re-engagement campaign to dormant Gmail contacts drew spam reports and Gmail throttled shared-a. "
          "Lowering the gmail.com rate on the pool brought deferrals down within two hours; the campaign's "
          "remaining waves were split over three days.")

H("es-0025", "2025-06-09T14:35", "RUNAWAY", "segmentation-engine", "high",
  "Segment builds stuck on shard 09 since the segmentation release",
  "segmentation-engine 4.12.0 rolled out at 14:15 and from 14:20 builds on shard 09 take minutes; the automation "
  "scheduler is timing out. db-09 primary CPU 94%, replicas idle, no replica lag. Top of the processlist is the same "
  "SELECT over contact_fields from one account, repeated.",
  source="oncall-report", reporter="oncall-ravi", sym=["slow-query", "db-cpu", "timeout"],
  dep=dep("segmentation-engine-4.12.0", "4.12.0", 20), start=20,
  tried=[(RB_DEPLOY, "run runbook deploy-restore-previous-release: segmentation-engine 4.12.0 -> 4.11.3; primary "
                     "CPU stayed at 94%", "failed")],
  fix="segment seg_77102 stopped and flagged needs-review, its recurring build suspended, query 51930 killed on the "
      "db-09 primary",
  delay=120, by="oncall-ravi",
  cause="an account's new segment (ORs over 11 custom fields with contains-search) scanned contact_fields on shard "
        "09; the release at 14:15 was a coincidence",
  summary="Builds on shard 09 slowed right after a segmentation release, so the release was taken back first, "
          "without effect. The cause was one customer's new segment doing a full scan on the shard primary every "
          "few minutes. Stopping that build and killing its query brought builds back to normal; 4.12.0 went out "
          "again the next day.")

P("es-0026", "2025-06-12T12:10", "SCANNER", "tracking-edge", "high", "TrackingEdgeOriginErrors",
  {"pop": "all"},
  "origin 5xx 5.2% of edge requests to click.fernpost.example over 5m", start=7,
  fix="scanner-prefetch rule enabled on the tracking hosts; campaign 90311's scanner hits marked non-human",
  delay=90, by="oncall-jo",
  cause="a B2B software newsletter to 400k corporate addresses triggered link prefetching by mail-security "
        "gateways",
  summary="Origin errors at the tracking edge came from security-gateway prefetches of a B2B newsletter's links. "
          "Enabling the edge scanner rule stopped them reaching click-tracker within three minutes, and the "
          "campaign's inflated clicks were corrected.")

P("es-0027", "2025-06-16T16:20", "BADLIST", "bounce-processor", "high", "AccountHardBounceRateHigh",
  {"account": "38402"},
  "account 38402 hard bounce rate 9.1% over 30m (limit 5%)", start=9,
  tried=[(RB_RESTORE, "run runbook suppression-restore-misclassified-bounces for account 38402's new suppressions "
                      "(contradiction hard-bounce-spike-response was open); the removed addresses bounced again and "
                      "one was a Spamhaus trap", "failed")],
  fix="all sending stopped for account 38402; compliance review opened",
  delay=120, by="dlv-tobias",
  cause="Saltmarsh Travel mailed a purchased 'travel enthusiasts' list; 5.1.1 across 2,000+ domains, correctly "
        "classified",
  summary="A purchased list produced real no-such-user bounces for one account. On-call, reading the open "
          "contradiction, assumed misclassification and removed the new suppressions; the addresses were mailed "
          "again and one hit a trap. Stopping the account ended it; the account was offboarded a week later.")

P("es-0028", "2025-06-19T05:10", "LISTED", "mta-pool", "high", "BlocklistListingDetected",
  {"ip": "198.51.100.61", "list": "spamcop"},
  "198.51.100.61 (shared-b) listed on bl.spamcop.net", sym=["blocklist-listing"], start=4,
  fix="disabled the virtual-mta for 198.51.100.61 in shared-b and reloaded PowerMTA; SpamCop listing expired after "
      "24h",
  delay=60, by="oncall-jo",
  cause="SpamCop listing after user reports on a shared-b sender's cold outreach",
  summary="SpamCop listed one shared-b IP after user reports. Taking the IP out of the pool kept mail flowing from "
          "clean IPs; the listing expired by itself a day later.")

H("es-0029", "2025-06-23T15:55", "CLICKLOAD", "click-tracker", "high",
  "Redirect 5xx during Peakform's summer fitness send",
  "Peakform sent 1.8M at 15:30, consumer list, mostly gmail/yahoo/icloud. /c/ 5xx at 4%, p99 3.5s. I turned on "
  "the scanner rule at the edge thinking it was the security-gateway thing again; 5xx went up to 9% and support got "
  "'link broken' tickets from readers. Request rate 4.6k/s, real browsers with cookies, pods pinned at their CPU "
  "limit.",
  source="oncall-report", reporter="oncall-jo", sym=["5xx", "latency-spike", "cpu-saturation"], start=25,
  tried=[(RB_SCANNER, "run runbook tracking-edge-challenge-link-scanners for campaign 91207; real readers got the "
                      "interstitial, 5xx rose to 9%", "failed")],
  fix="scanner rule disabled again; click-tracker 16 -> 36 replicas and HPA maximum 30 -> 60",
  delay=60, by="oncall-jo",
  cause="a genuine click peak from a consumer send; click-tracker at its CPU limit and HPA ceiling",
  summary="A consumer send produced a real click peak. On-call applied the scanner rule from es-0019 and made it "
          "worse, since the clicks were human. Turning the rule off and adding click-tracker replicas ended the "
          "5xx within ten minutes.")

P("es-0030", "2025-06-26T10:45", "BLOCKMIS", "suppression-service", "high", "SuppressionAddsSpike",
  {"reason": "hard_bounce"},
  "hard_bounce suppressions 22,904 in 1h (baseline 2,000)",
  dep=dep("bounce-processor-3.8.0", "3.8.0", 35), start=14,
  fix="classifier pinned to rules 2025.06.10, bounces since 10:05 re-parsed from the raw log and re-classified, 24,380 "
      "wrong suppressions removed",
  delay=120, by="dlv-amara",
  cause="bounce-processor 3.8.0's multi-line response parser dropped the first line of Gmail's '452-4.2.2 over "
        "quota' answers, which then fell through to the default hard rule",
  summary="A parser change in bounce-processor 3.8.0 made Gmail over-quota answers look like hard bounces and "
          "suppressed 24k valid addresses. The classification fix and suppression clean-up ran through the "
          "runbook; the parser was patched in 3.8.1.")

H("es-0031", "2025-06-30T08:05", "MTACAP", "mta-pool", "high",
  "outlook.com queue on shared-c climbing, Microsoft accepting fine",
  "Quarter-end sends. outlook.com queue on shared-c 340k and oldest message 44 min. Acceptance 98%, barely any 4xx. "
  "Connections per host for outlook.com are all in use.",
  source="oncall-report", reporter="oncall-mika", sym=["queue-backlog", "connection-exhaustion"], start=20,
  fix="shared-c +3 delivery hosts and outlook.com max-smtp-out 300 -> 450",
  delay=120, by="oncall-mika",
  cause="quarter-end volume exceeded shared-c's outlook.com connection cap",
  summary="Quarter-end campaigns exceeded shared-c's connections to Outlook while Outlook accepted normally. Adding "
          "hosts and connections cleared the queue in 75 minutes.")

H("es-0032", "2025-07-03T13:40", "WARMUP", "mta-pool", "high",
  "ded-orchardline: Gmail and Outlook deferring most of the new pool",
  "Orchardline moved onto 6 fresh IPs on Monday. Today at 11:00 they sent the weekly circular (620k) and the pool "
  "let all of it through; day 4 should be 25k. Gmail 421-4.7.28 on all six IPs, Outlook S77719. On-call added "
  "delivery hosts to the pool at 12:30 thinking it was capacity, and the deferrals got worse.",
  source="slack", reporter="dlv-keiko", sym=["smtp-4xx-deferrals", "delivery-rate-drop", "ip-reputation"],
  err=["421-4.7.28 [192.0.2.90] Our system has detected an unusual rate of unsolicited mail originating from your "
       "IP address.", "451 4.7.500 Server busy. Please try again later from [192.0.2.91]. (S77719)"], start=150,
  tried=[(RB_SCALE, "run runbook mta-scale-delivery-workers on ded-orchardline (2 -> 4 hosts); more deferrals",
          "failed")],
  fix="ded-orchardline pinned at its day-4 step (25k/day) with shared-a as overflow; extra hosts removed",
  delay=240, by="dlv-keiko",
  cause="the pool migration script set warmup_schedule=none for ded-orchardline, so no warm-up cap applied",
  summary="A four-day-old dedicated pool sent a 620k circular because its warm-up schedule was missing. Adding "
          "capacity made the ISPs defer harder. Pinning the pool to its day-4 step and sending the rest through "
          "shared-a fixed it; the migration script now refuses pools without a schedule.")

P("es-0033", "2025-07-08T22:30", "WEBHOOK", "webhook-dispatcher", "high", "WebhookRetryQueueHigh", {},
  "retry queue 1.4M events, growing 30k/min", start=10,
  fix="endpoint host hooks.caskmere.example (all 6 subscriptions) set aside with events spooled, concurrency capped "
      "at 4",
  delay=60, by="oncall-jo",
  cause="Caskmere's webhook receiver went down behind a load balancer that accepted connections and never answered",
  summary="One customer's receiver accepted connections and never replied, filling the workers and the retry "
          "queue. The revised runbook set the whole host aside; the retry queue drained in 25 minutes and the "
          "spooled events were replayed the next morning.")

P("es-0034", "2025-07-10T09:20", "RUNAWAY", "campaign-api", "medium", "ApiLatencyHigh",
  {"route": "/v3/segments/{id}/count"},
  "p99 for /v3/segments/{id}/count 31s over 10m", start=12,
  fix="segment seg_80455 stopped and flagged needs-review, query 20817 killed on the db-14 primary",
  delay=90, by="oncall-ravi",
  cause="an account's segment using REGEXP on a free-text custom field scanned shard 14's contact_fields from the "
        "API count endpoint and a recurring automation",
  summary="Segment count calls through the API took 30 seconds because one customer's REGEXP segment pinned the "
          "shard 14 primary. Stopping that segment and killing its query brought the endpoint back to 400ms.")

P("es-0035", "2025-07-14T07:50", "ISPDEFER", "send-queue", "high", "SendQueueBacklogHigh",
  {"queue": "delivery.yahoo"},
  "delivery.yahoo ready messages 1.7M for 20m; yahoo.com deferral ratio 0.38", start=20,
  fix="yahoo.com limited to 2 connections and 100 messages/min per IP on shared-a and shared-b",
  delay=180, by="dlv-tobias",
  cause="Yahoo deferred both shared pools with TSS04 after a weekend of complaint-heavy promotions",
  summary="Yahoo throttled both shared pools after weekend promotions raised complaints, and ready messages piled "
          "up in send-queue behind the MTA. Lowering the Yahoo rate on both pools brought deferrals down by "
          "10:30.")

P("es-0036", "2025-07-17T12:05", "SCANNER", "click-tracker", "high", "ClickRedirect5xx",
  {"region": "eu-west-1"},
  "5xx ratio on /c/ 6.1% over 5m; 39k req/s from 14 distinct user agents", region="eu-west-1", start=6,
  fix="scanner-prefetch rule enabled for the EU tracking hosts; campaign 93340's scanner hits marked non-human",
  delay=135, by="trk-nadia",
  cause="a German insurer's newsletter to corporate mailboxes behind mail-security gateways that prefetch links",
  summary="EU click-tracker returned 5xx under 39k requests per second from a few user agents: mail-security "
          "prefetches of a corporate newsletter. The edge scanner rule stopped them; the EU hosts had not been in "
          "the rule's host list, which was fixed.")

P("es-0037", "2025-07-17T12:35", "SCANNER", "tracking-edge", "high", "TrackingEdgeOriginErrors",
  {"pop": "fra,ams,lhr"},
  "origin 5xx 4.9% of edge requests over 5m", region="eu-west-1", start=5,
  fix="", delay=110, by="trk-nadia", repage_of="es-0036",
  cause="same scanner prefetch wave as es-0036, seen from the edge",
  summary="")

P("es-0038", "2025-07-24T15:10", "BADLIST", "bounce-processor", "high", "SpamTrapHitsHigh",
  {"account": "73321"},
  "3 pristine trap hits in 1h for account 73321; hard bounce rate 7.7%", sym=["spam-trap-hits"], start=8,
  fix="all sending stopped for account 73321; compliance review opened",
  delay=60, by="dlv-amara",
  cause="Marrowbone Pet imported a co-registration list from a giveaway partner; traps and no-such-user bounces",
  summary="A co-registration list from a giveaway partner hit three pristine traps and bounced 7.7% on "
          "no-such-user answers. Stopping the account ended it; the partner list was removed.")

P("es-0039", "2025-07-29T06:40", "ONE-MXDNS", "mta-pool", "critical", "IspQueueDepthHigh",
  {"isp": "multiple", "pool": "shared-a,shared-b,shared-c"},
  "14 ISP queues above threshold (web.de 88k, comcast.net 71k, orange.fr 64k, ...); deferral ratio 0.02",
  firing=14, start=25,
  tried=[(RB_SCALE, "run runbook mta-scale-delivery-workers on shared-a and shared-b; queues kept growing", "failed")],
  fix="put back the egress NetworkPolicy rule letting mx-resolver reach its upstream resolvers on port 53 (removed "
      "at 06:10 by a platform policy clean-up) and flushed mx-resolver's negative cache",
  delay=120, by="oncall-sven",
  cause="mx-resolver could not reach upstream DNS; MX lookups for domains not in its cache failed and the MTA "
        "queued that mail as 'DNS lookup failure', while the big ISPs (cached) kept flowing",
  summary="Queues grew for many mid-sized domains at once while the big ISPs and the deferral ratio looked normal. "
          "Adding delivery hosts did nothing. A NetworkPolicy clean-up had cut mx-resolver off from upstream DNS; "
          "MX records for uncached domains could not be resolved. Restoring the rule and flushing the negative "
          "cache released the queues in 20 minutes.")

H("es-0040", "2025-08-01T09:30", "BLOCKMIS", "bounce-processor", "high",
  "Outlook hard bounces across all accounts, looks like S3150 again",
  "outlook.com hard bounce rate 6.3% across every account since 08:40 (normal 0.4%). The raw answers are the S3150 "
  "'part of their network is on our block list' text on two shared-c IPs. Suppressions are being added for all of "
  "them.",
  source="slack", reporter="dlv-amara", sym=["hard-bounce-spike", "suppression-spike", "smtp-5xx-rejections"],
  err=["550 5.7.1 Unfortunately, messages from [203.0.113.58] weren't sent. Please contact your Internet service "
       "provider since part of their network is on our block list (S3150)."], start=50,
  fix="classifier pinned to rules 2025.07.14, bounces since 08:40 re-classified, 19,770 wrong suppressions removed",
  delay=180, by="dlv-amara",
  cause="the S3150 rule added after es-0011 was lost in a merge of the classifier rules repository; Microsoft "
        "blocked two shared-c IPs again",
  summary="Microsoft's S3150 block on two shared-c IPs was again classified as hard bounces because the April rule "
          "had been lost in a merge. The runbook re-classified the bounces and removed 19.8k wrong suppressions; "
          "a test now guards the S3150 rule.")

H("es-0041", "2025-08-05T17:30", "CLICKLOAD", "tracking-edge", "high",
  "Edge 502s on click links during Lumen & Lark's drop",
  "Lumen & Lark's limited drop went out at 17:00 to 2.6M; clicks are real (sold out in 9 minutes). Edge shows 502 "
  "for ~5% of /c/ requests, click-tracker pods at their CPU limit, HPA at max.",
  source="slack", reporter="oncall-mika", sym=["5xx", "cpu-saturation"], start=20,
  fix="click-tracker 30 -> 56 replicas and HPA maximum 60 -> 90",
  delay=60, by="oncall-mika",
  cause="a genuine click peak from a limited-edition drop; click-tracker at its CPU limit and HPA ceiling",
  summary="A product drop produced a real click peak that click-tracker could not serve at its replica ceiling. "
          "Adding replicas and raising the ceiling ended the edge 502s within eight minutes.")

P("es-0042", "2025-08-08T10:15", "WARMUP", "mta-pool", "high", "DeliveryRateLow",
  {"isp": "yahoo.com", "pool": "ded-novafeet"},
  "yahoo.com delivered/attempted on ded-novafeet 0.41 over 15m; pool age 7d", start=15,
  fix="ded-novafeet pinned at its day-7 step (60k/day) with shared-b as overflow",
  delay=4285, by="dlv-keiko",
  cause="the customer scheduled three campaigns on the same day and the pool's daily cap was enforced per campaign, "
        "not per pool",
  summary="A seven-day-old dedicated pool sent three campaigns in one day because the warm-up cap was applied per "
          "campaign. Yahoo deferred most of it. Pinning the pool at its step with shared-b as overflow fixed it "
          "that day; the outcome was written up after the cap bug was fixed three days later.")

H("es-0043", "2025-08-12T14:00", "WEBHOOK", "webhook-dispatcher", "medium",
  "Customers asking why click webhooks are two hours behind",
  "Four tickets since noon (Greywick, Tidewell, Hollowfen, Peakform): click and bounce events reach their "
  "endpoints up to two hours late. Their own endpoints look healthy.",
  source="support-ticket", reporter="support-lin", sym=["webhook-backlog", "latency-spike"], start=100,
  fix="endpoint host crm-sync.quillpress.example (11 subscriptions) set aside with events spooled, concurrency "
      "capped at 4",
  delay=120, by="oncall-jo",
  cause="Quillpress's CRM sync endpoint began answering in 20-28 seconds after their CRM vendor's incident",
  summary="Other customers' webhooks were late because one customer's CRM sync host answered in 20-28 seconds. "
          "Setting that host aside cleared the delay for everyone within 30 minutes.")

P("es-0044", "2025-08-21T04:30", "LISTED", "mta-pool", "high", "BlocklistListingDetected",
  {"ip": "203.0.113.18", "list": "spamhaus-css"},
  "203.0.113.18 (shared-c) listed on zen.spamhaus.org", sym=["blocklist-listing"], start=6,
  tried=[(RB_PMTA, "run runbook pmta-pull-listed-ip for 203.0.113.18; failed at the first step: the PowerMTA hosts "
                   "were shut down on 2025-08-18", "failed")],
  fix="egress source shared-c-18 (203.0.113.18) suspended in KumoMTA; delisting request filed",
  delay=90, by="oncall-jo",
  cause="Spamhaus CSS listing of 203.0.113.18 after a new sender's bulk send to old addresses",
  summary="First blocklisting after the move to KumoMTA. The on-call ran the old PowerMTA runbook, which could not "
          "reach any PowerMTA host. Suspending the egress source in KumoMTA moved its traffic to the pool's other "
          "IPs; the CSS listing was removed the next day.")

H("es-0045", "2025-08-26T11:30", "ISPDEFER", "mta-pool", "high",
  "Gmail 4.7.28 on shared-b after the back-to-school sends",
  "Gmail is deferring 35-40% of shared-b since 10:50, all 421-4.7.28. Postmaster Tools shows spam rate 0.4% "
  "yesterday for the pool's domain group. First one of these since the KumoMTA move.",
  source="slack", reporter="dlv-tobias", sym=["smtp-4xx-deferrals", "complaint-rate"],
  err=["421-4.7.28 [198.51.100.40] Our system has detected an unusual rate of unsolicited mail originating from "
       "your IP address."], start=40,
  fix="KumoMTA shaping override for gmail.com on shared-b: 150 messages/min and 3 connections per IP for 6h, retry "
      "interval 20m",
  delay=180, by="dlv-tobias",
  cause="back-to-school promotions raised the complaint rate; Gmail throttled shared-b",
  summary="Gmail throttled shared-b after complaint-heavy promotions. The revised runbook applied the same "
          "slow-down through KumoMTA's shaping override; deferrals fell under 5% by 14:00.")

H("es-0046", "2025-08-29T13:00", "SCANNER", "click-tracker", "medium",
  "Tidewell's report shows a 100% click rate two minutes after sending",
  "Tidewell says their 'Claims made simple' campaign shows every recipient clicking every link within two minutes "
  "of delivery, and a few of their staff got an error page when clicking. Their list is all company addresses.",
  source="support-ticket", reporter="support-rosa", sym=["click-inflation", "5xx", "bot-traffic"], start=50,
  fix="scanner-prefetch rule enabled for Tidewell's custom tracking host (it had been missing from the host list); "
      "campaign 95002's scanner hits marked non-human",
  delay=150, by="trk-nadia",
  cause="mail-security gateways prefetched every link; Tidewell's custom tracking domain was not covered by the "
        "edge rule",
  summary="A corporate-audience campaign showed impossible click rates and some real readers hit errors: scanner "
          "prefetches on a custom tracking domain that the edge rule did not cover. Enabling the rule for that "
          "host fixed both; custom tracking hosts are now added to the rule automatically.")

P("es-0047", "2025-09-02T10:20", "ONE-HTTPCLIENT", "webhook-dispatcher", "high", "WebhookDeliveryLatencyHigh",
  {"quantile": "0.95"},
  "p95 event-to-delivery 19m (SLO 2m)",
  dep=dep("webhook-dispatcher-2.14.0", "2.14.0", 50), start=12,
  tried=[(RB_WEBHOOK, "run runbook webhook-park-failing-endpoint for hooks.hollowfen.example, the slowest host; no "
                      "change, every host was slow", "failed")],
  fix="webhook-dispatcher 2.14.0 -> 2.13.2",
  delay=120, by="oncall-sven",
  cause="2.14.0 created a new HTTP client per delivery (no keep-alive), so every event paid a TLS handshake and the "
        "egress NAT ran out of source ports; every endpoint looked slow",
  summary="Webhook delivery slowed for all customers 50 minutes after a dispatcher release. Setting aside the "
          "slowest endpoint did nothing, because every endpoint was slow: the release dropped connection reuse and "
          "exhausted NAT source ports. Going back to 2.13.2 fixed it; 2.14.1 restored the shared client.")

H("es-0048", "2025-09-05T16:00", "BADLIST", "campaign-api", "medium",
  "Peakform asking why their account got flagged after today's send",
  "Peakform (acct 61190) sent to a segment called 'imported - gym partners' at 14:00, 180k contacts added Tuesday. "
  "Bounce report: 9% 'no such user' across hundreds of domains, and the customer wants to send the second half "
  "tomorrow morning.",
  source="support-ticket", reporter="support-dev", sym=["hard-bounce-spike"],
  err=["550 5.1.1 <m.lindqvist@example.org>: Recipient address rejected: User unknown in virtual mailbox table"],
  start=120,
  fix="all sending stopped for account 61190 including tomorrow's wave; compliance review opened",
  delay=90, by="dlv-amara",
  cause="Peakform imported a partner gyms' member list without consent records; genuine no-such-user bounces",
  summary="A partner list imported by one account bounced 9% on genuine no-such-user answers. Stopping the "
          "account kept the second half from going out; the list was removed after the compliance review.")

P("es-0049", "2025-09-09T02:30", "REPLAG", "segmentation-engine", "high", "SegmentBuildSlow",
  {"shard": "05"},
  "p90 segment build 95s on shard 05; replica db-05b lag 780s", start=10,
  fix="db-05b set OFFLINE_SOFT in ProxySQL until it caught up",
  delay=60, by="oncall-mika",
  cause="a schema change on shard 05 (new index on contact_events) replayed in one thread on db-05b",
  summary="Segment builds on shard 05 were slow and wrong because they read from a replica 13 minutes behind after "
          "an index build. Taking it out of the read hostgroup fixed the builds; the replica caught up at 03:40.")

H("es-0050", "2025-09-12T08:10", "MTACAP", "mta-pool", "high",
  "kumod on shared-a at its gmail.com connection limit, queue growing",
  "Friday newsletter peak. gmail.com queue on shared-a 600k and rising, Gmail accepting 99%. All 8 kumod pods of "
  "shared-a report the gmail.com connection limit reached.",
  source="oncall-report", reporter="oncall-sven", sym=["queue-backlog", "connection-exhaustion"], start=20,
  fix="kumod-shared-a 8 -> 12 replicas and gmail.com connection limit raised for 12h",
  delay=120, by="oncall-sven",
  cause="shared-a's kumod replicas hit their gmail.com connection limit during a Friday peak",
  summary="First capacity backlog after the KumoMTA move: the pool's connections to Gmail were the limit while "
          "Gmail accepted everything. The revised runbook added kumod replicas and connections; the queue was empty "
          "by 09:40.")

H("es-0051", "2025-09-16T10:40", "LISTED", "bounce-processor", "high",
  "Cloudmark listing, block bounces from Comcast/Cox/Charter",
  "Block bounces from cable ISPs up since 08:00, all from 198.51.100.77 (shared-b). Cloudmark CSI shows the IP "
  "listed with a poor reputation score.",
  source="slack", reporter="dlv-amara", sym=["blocklist-listing", "smtp-5xx-rejections"],
  err=["554 5.7.1 198.51.100.77 found on one or more RBLs (csi.cloudmark.com)"], start=160,
  fix="egress source shared-b-77 suspended in KumoMTA; Cloudmark reset request filed",
  delay=120, by="dlv-amara",
  cause="Cloudmark listed 198.51.100.77 after spam reports on a sender's sweepstakes mailing",
  summary="Cable ISPs that use Cloudmark refused mail from one shared-b IP. Suspending its egress source moved the "
          "traffic to clean IPs; Cloudmark reset the score two days later.")

P("es-0052", "2025-09-19T11:15", "RUNAWAY", "segmentation-engine", "high", "SegmentBuildSlow",
  {"shard": "12"},
  "p90 segment build 180s on shard 12; replica lag 0s", start=10,
  fix="segment seg_88930 stopped and flagged needs-review, query 73305 killed on the db-12 primary",
  delay=60, by="oncall-ravi",
  cause="a segment on 'any custom field contains' over 30 fields scanned contact_fields on shard 12",
  summary="One customer's segment over 30 custom fields pinned the shard 12 primary. Stopping the build and killing "
          "the query restored builds within two minutes.")

H("es-0053", "2025-09-23T09:50", "BLOCKMIS", "suppression-service", "high",
  "Suppressions jumping for GMX and web.de addresses",
  "suppression-service added ~15k hard_bounce entries overnight, nearly all gmx.de, gmx.net and web.de, across "
  "about 200 accounts. The raw answers are '451 4.3.2 temporarily rejected' wrapped in a 554 by one of our MX "
  "smarthosts in Frankfurt, so the classifier sees a 5xx.",
  source="slack", reporter="dlv-keiko", sym=["suppression-spike"],
  err=["554 5.0.0 Delivery failed: remote said 451 4.3.2 temporarily rejected - try again later"], start=240,
  fix="classifier pinned to rules 2025.09.01, bounces since 22:00 re-classified, 15,320 wrong suppressions removed",
  delay=1510, by="dlv-keiko",
  cause="an EU relay wrapped German providers' temporary 451 rejections in a permanent 554; the classifier trusted "
        "the outer code",
  summary="Temporary rejections from two German providers arrived wrapped in a permanent code, and the classifier "
          "suppressed 15k valid addresses across 200 accounts. The runbook re-classified and removed them; the "
          "relay was fixed to pass the inner code through the next day, when the outcome was written.")

H("es-0054", "2025-09-26T13:20", "WARMUP", "mta-pool", "high",
  "Tidewell's new pool deferred at Microsoft on day 3",
  "ded-tidewell is on day 3 of warm-up. It sent 210k this morning; the schedule says 15k. Outlook S77719 on all "
  "four IPs, Gmail fine so far. The shaping config shows no warm-up entry for this pool.",
  source="slack", reporter="dlv-tobias", sym=["smtp-4xx-deferrals", "delivery-rate-drop"],
  err=["451 4.7.500 Server busy. Please try again later from [192.0.2.120]. (S77719)"], start=70,
  fix="ded-tidewell pinned at its day-3 step (15k/day) with shared-c as fallback pool in KumoMTA",
  delay=180, by="dlv-tobias",
  cause="the KumoMTA pool definition for ded-tidewell was created without a warm-up entry",
  summary="A three-day-old pool had no warm-up entry in the new shaping config and sent 14x its step. Pinning the "
          "step with a shared fallback pool stopped the deferrals; the pool template now requires a warm-up "
          "entry.")

P("es-0055", "2025-09-30T07:35", "ISPDEFER", "mta-pool", "high", "DeferralRateHigh",
  {"isp": "yahoo.com", "pool": "shared-c"},
  "4xx deferrals 44% of yahoo.com attempts on shared-c over 15m", start=10,
  fix="KumoMTA shaping override for yahoo.com on shared-c: 100 messages/min and 2 connections per IP for 6h",
  delay=120, by="oncall-jo",
  cause="Yahoo TSS04 deferrals on shared-c after a quarter-end promotion wave",
  summary="Yahoo throttled shared-c after promotion-heavy days. A shaping override lowered the rate; deferrals were "
          "under 5% by 09:15.")

P("es-0056", "2025-10-08T05:20", "REPLAG", "contact-store", "high", "VttabletReplicationLagHigh",
  {"keyspace": "contacts", "shard": "60-70", "tablet": "zone1-0000001402"},
  "replication lag 920s on replica tablet zone1-0000001402", sym=["replica-lag"], start=9,
  tried=[(RB_PROXYSQL, "run runbook proxysql-shun-lagging-replica; failed, proxysql-admin.contacts no longer "
                       "exists after the move to Vitess", "failed")],
  fix="tablet zone1-0000001402 changed to drained until lag was under 10s, then back to replica",
  delay=60, by="oncall-ravi",
  cause="a backfill job wrote 40M rows to shard 60-70; the replica tablet lagged and vtgate kept routing reads to it "
        "because the lag threshold was still the default",
  summary="First replica lag after the Vitess move. The old ProxySQL runbook had nothing to act on. Marking the "
          "lagging tablet drained took it out of serving; it caught up in 35 minutes, and vtgate's lag threshold "
          "was lowered to 30s.")

H("es-0057", "2025-10-10T21:15", "WEBHOOK", "webhook-dispatcher", "high",
  "Webhook latency alarm, one host answering slowly",
  "p95 webhook delay 22 min. Traces show workers waiting 30s on hooks.greywick.example; everything else answers in "
  "under a second.",
  source="oncall-report", reporter="oncall-jo", sym=["webhook-backlog"], start=15,
  fix="endpoint host hooks.greywick.example set aside with events spooled, concurrency capped at 4",
  delay=60, by="oncall-jo",
  cause="Greywick Bank's endpoint slowed to 30s during their maintenance window",
  summary="One customer's endpoint hung during their maintenance window and occupied the workers. Setting the host "
          "aside cleared the delay in 15 minutes.")

P("es-0058", "2025-10-14T16:30", "CLICKLOAD", "click-tracker", "high", "ClickRedirect5xx",
  {"region": "us-east-1"},
  "5xx ratio on /c/ 3.9% over 5m; 5.8k req/s; pod CPU throttling 71%", start=6,
  fix="click-tracker 30 -> 50 replicas and HPA maximum 90 -> 120",
  delay=60, by="oncall-mika",
  cause="a retailer's early holiday preview produced a genuine click peak; click-tracker CPU-throttled",
  summary="A real click peak from a holiday preview hit click-tracker's CPU limits. Adding replicas ended the 5xx "
          "in seven minutes.")

H("es-0059", "2025-10-17T14:00", "ONE-DMARC", "mta-pool", "high",
  "Gmail rejecting everything from Hollowfen Outdoors with 5.7.26",
  "Since about 09:00 every gmail.com message from Hollowfen bounces with 5.7.26 DMARC. Other customers on shared-a "
  "are fine at Gmail. Yahoo is refusing them too.",
  source="slack", reporter="dlv-amara", sym=["smtp-5xx-rejections", "delivery-rate-drop"],
  err=["550-5.7.26 Unauthenticated email from hollowfen.example is not accepted due to domain's DMARC policy."],
  start=300,
  tried=[(RB_BACKOFF, "run runbook mta-apply-isp-backoff for gmail.com on shared-a; nothing changed, the answers "
                      "were permanent rejections", "failed")],
  fix="support got Hollowfen's IT to add the fp1._domainkey CNAME back (lost when they moved DNS providers on "
      "10-16); after propagation DKIM passed and the customer re-sent",
  delay=1500, by="dlv-amara",
  cause="Hollowfen moved its DNS to a new provider and dropped the CNAME for Fernpost's DKIM selector; with no "
        "aligned DKIM, Gmail and Yahoo enforced its p=reject DMARC policy",
  summary="One customer's mail failed DMARC everywhere because their DNS move dropped the DKIM CNAME. Lowering "
          "the Gmail rate was useless against permanent rejections. The record was put back by the customer and "
          "mail flowed the next morning; a daily DKIM DNS check per sending domain was added.")

H("es-0060", "2025-10-21T13:10", "BADLIST", "bounce-processor", "high",
  "Caskmere's send bouncing on 'no such user' everywhere",
  "Caskmere (acct 18830) started a 400k send at 12:30 to a segment built from a trade-show scan list. 10.4% hard "
  "bounces so far, 5.1.1/5.1.10 across ~3,000 domains, and our trap feed shows one hit. The send is still going.",
  source="slack", reporter="dlv-tobias", sym=["hard-bounce-spike", "spam-trap-hits"],
  err=["550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"], start=40,
  fix="all sending stopped for account 18830 mid-send; compliance review opened",
  delay=60, by="dlv-tobias",
  cause="Caskmere mailed a trade-show badge-scan list with mistyped and dead addresses",
  summary="A trade-show scan list bounced 10% on genuine no-such-user answers and hit a trap. Stopping the account "
          "mid-send limited the damage; the list was cleaned before any further send.")

H("es-0061", "2025-10-24T12:20", "SCANNER", "tracking-edge", "high",
  "Tracking edge origin errors after Greywick's statement notice",
  "Greywick's monthly statement notice (350k, all business banking customers) went at 12:00. Edge-to-origin 5xx "
  "at 5%, click-tracker request rate ~30x normal, almost no cookies. Looks like link prefetch again, but the "
  "requests come from a new ASN that is not in our security-gateway list.",
  source="oncall-report", reporter="oncall-jo", sym=["5xx", "bot-traffic"], start=18,
  fix="new gateway vendor's ASN added to the security-gateways list and the scanner-prefetch rule applied; scanner "
      "hits of campaign 98114 marked non-human",
  delay=120, by="trk-nadia",
  cause="a mail-security vendor new to us prefetched every link in Greywick's notice from an ASN missing from the "
        "list",
  summary="A bank's notice triggered link prefetching by a gateway vendor whose ASN was not in the list. Adding it "
          "and applying the edge scanner rule ended the origin errors.")

P("es-0062", "2025-10-28T09:40", "REPLAG", "contact-store", "high", "VttabletReplicationLagHigh",
  {"keyspace": "contacts", "shard": "a0-b0", "tablet": "zone1-0000002207"},
  "replication lag 610s on replica tablet zone1-0000002207", start=7,
  fix="tablet zone1-0000002207 changed to drained until caught up, then back to replica",
  delay=130, by="oncall-ravi",
  cause="a bulk contact import of 12M rows for one account on shard a0-b0 lagged the replica tablet",
  summary="A 12M-row import lagged one replica tablet. Draining it moved reads to the healthy replica; it returned "
          "to serving after catching up.")

H("es-0063", "2025-10-28T10:05", "REPLAG", "campaign-api", "medium",
  "Imports 'complete' but contacts missing from segments for some accounts",
  "Two customers (Saltmarsh, Brightloom) say imports finished an hour ago but new contacts don't appear in "
  "segments or in GET /v3/contacts. Both on the same shard I think.",
  source="support-ticket", reporter="support-lin", sym=["stale-reads"], start=30,
  fix="", delay=120, by="oncall-ravi", repage_of="es-0062",
  cause="same lagging replica tablet as es-0062",
  summary="")

H("es-0064", "2025-11-03T06:45", "LISTED", "mta-pool", "high",
  "SBL-CSS hit on shared-a",
  "Spamhaus CSS listed 198.51.100.12 (shared-a) at 04:10. Roughly 4% of shared-a volume refused.",
  source="slack", reporter="dlv-keiko", sym=["blocklist-listing"],
  err=["554 5.7.1 Service unavailable; Client host [198.51.100.12] blocked using zen.spamhaus.org"], start=150,
  fix="egress source shared-a-12 suspended in KumoMTA; delisting request filed",
  delay=90, by="dlv-keiko",
  cause="CSS listing after a sender's send to an unengaged segment from shared-a",
  summary="One shared-a IP was listed on the CSS. Suspending its egress source kept the pool clean while the "
          "listing was removed the next day.")

H("es-0065", "2025-11-06T08:00", "MTACAP", "send-queue", "high",
  "delivery.gmail backed up in send-queue during the pre-holiday peak",
  "send-queue has 3.4M ready for delivery.gmail. The kumod pods are at their gmail.com connection limit; Gmail "
  "deferrals 1%.",
  source="oncall-report", reporter="oncall-mika", sym=["queue-backlog"], start=15,
  fix="kumod-shared-a 12 -> 16 and kumod-shared-b 10 -> 14 replicas, gmail.com connection limit raised for 12h",
  delay=120, by="oncall-mika",
  cause="pre-holiday volume above both shared pools' gmail.com connection capacity",
  summary="Pre-holiday volume backed up delivery.gmail in send-queue while Gmail accepted normally. More kumod "
          "replicas and connections on both shared pools emptied it in 80 minutes.")

H("es-0066", "2025-11-10T15:30", "RUNAWAY", "segmentation-engine", "high",
  "Segment builds timing out on shard 40-50",
  "Automations on shard 40-50 are missing their windows; builds take 3-4 minutes instead of seconds. The primary "
  "tablet is at 97% CPU, replica tablets idle, lag 0. The same query from one account keeps showing up in the "
  "vtgate query log.",
  source="oncall-report", reporter="oncall-ravi", sym=["slow-query", "db-cpu", "timeout"], start=25,
  fix="segment seg_93120 stopped and flagged needs-review, query 60114 killed on the primary tablet through "
      "vtctldclient",
  delay=120, by="oncall-ravi",
  cause="an account's segment joining contact_events over 3 years without a date bound scanned the shard primary",
  summary="A customer's unbounded event segment pinned the primary tablet of shard 40-50. The revised runbook "
          "stopped the build and killed the query through Vitess; builds recovered at once.")

P("es-0067", "2025-11-13T11:00", "BLOCKMIS", "bounce-processor", "high", "HardBounceRateHigh",
  {"isp": "icloud.com"},
  "icloud.com hard bounce 8.1% across all accounts over 30m (normal 0.3%)", start=10,
  fix="classifier pinned to rules 2025.10.28, bounces since 10:20 re-classified, 9,410 wrong suppressions removed",
  delay=200, by="dlv-amara",
  cause="iCloud answered '554 5.7.1 [CS01] Message rejected due to local policy' during its own incident; the "
        "classifier had no rule for CS01 and treated it as no-such-user",
  summary="iCloud's temporary policy rejections were classified as hard bounces for every account. The runbook "
          "re-classified them and removed 9.4k wrong suppressions; a CS01 rule was added.")

P("es-0068", "2025-11-13T11:30", "BLOCKMIS", "suppression-service", "high", "SuppressionAddsSpike",
  {"reason": "hard_bounce"},
  "hard_bounce suppressions 11,020 in 1h (baseline 2,000)", start=5,
  fix="", delay=175, by="dlv-amara", repage_of="es-0067",
  cause="same iCloud misclassification as es-0067",
  summary="")

P("es-0069", "2025-11-18T10:00", "WARMUP", "mta-pool", "high", "DeliveryRateLow",
  {"isp": "gmail.com", "pool": "ded-quillpress"},
  "gmail.com delivered/attempted on ded-quillpress 0.47 over 15m; pool age 5d", start=14,
  fix="ded-quillpress pinned at its day-5 step (30k/day) with shared-a as fallback pool",
  delay=180, by="dlv-keiko",
  cause="Quillpress's holiday catalogue was scheduled on the new pool's day 5 with the warm-up cap turned off by an "
        "account manager",
  summary="An account manager turned off a new pool's warm-up cap for a holiday catalogue and Gmail deferred the "
          "pool. Pinning its step with a shared fallback fixed it.")

H("es-0070", "2025-11-21T14:20", "ISPDEFER", "mta-pool", "high",
  "Gmail deferring shared-b, 4.7.28, complaint rate up",
  "Deferrals at Gmail on shared-b ~45% since 13:30. Postmaster shows spam rate 0.5% for Wednesday. Two pre-Black "
  "Friday senders on the pool mailed older segments.",
  source="slack", reporter="dlv-keiko", sym=["smtp-4xx-deferrals", "complaint-rate", "delivery-rate-drop"],
  err=["421-4.7.28 [198.51.100.44] Gmail has detected an unusual rate of unsolicited mail originating from your "
       "IP address."], start=50,
  fix="KumoMTA shaping override for gmail.com on shared-b for 6h; the two senders moved to a probation pool",
  delay=240, by="dlv-keiko",
  cause="pre-Black Friday sends to stale segments raised complaints; Gmail throttled shared-b",
  summary="Gmail throttled shared-b after two senders mailed stale segments. The shaping override brought "
          "deferrals down by 17:00.")

P("es-0071", "2025-11-28T13:05", "CLICKLOAD", "click-tracker", "critical", "ClickRedirect5xx",
  {"region": "us-east-1"},
  "5xx ratio on /c/ 5.6% over 5m; 9.2k req/s; pod CPU throttling 80%", start=5,
  fix="click-tracker 60 -> 110 replicas and HPA maximum 120 -> 160",
  delay=100, by="oncall-mika",
  cause="Black Friday click peak from consumer sends; click-tracker CPU-throttled at its replica ceiling",
  summary="Black Friday consumer sends produced a real click peak above click-tracker's ceiling. More replicas "
          "and a higher ceiling ended the 5xx.")

P("es-0072", "2025-11-28T13:40", "SCANNER", "tracking-edge", "high", "TrackingEdgeOriginErrors",
  {"pop": "iad,ord,dfw"},
  "origin 5xx 4.4% of edge requests over 5m; 62% of requests without cookies", start=6,
  fix="scanner-prefetch rule extended to the B2B tracking hosts used by two office-supply senders; their scanner "
      "hits marked non-human",
  delay=80, by="trk-nadia",
  cause="B2B Black Friday sends to corporate mailboxes triggered link prefetching, on hosts missing from the rule",
  summary="While es-0071 was still open, a second wave of origin errors came from link prefetching of B2B Black "
          "Friday sends. The edge scanner rule, extended to those hosts, stopped it.")

H("es-0073", "2025-12-03T04:15", "REPLAG", "segmentation-engine", "high",
  "Overnight segment builds wrong on one shard",
  "Night shift: overnight segment refreshes for accounts on shard c0-d0 returned counts 5-8% low compared with "
  "yesterday. Replica tablet lag on that shard is 14 minutes.",
  source="oncall-report", reporter="oncall-sven", sym=["stale-reads", "replica-lag"], start=20,
  fix="replica tablet zone1-0000003104 changed to drained until caught up",
  delay=60, by="oncall-sven",
  cause="the monthly archive job on shard c0-d0 lagged one replica tablet",
  summary="Overnight segment refreshes on one shard read from a replica tablet 14 minutes behind after the "
          "archive job. Draining it fixed the counts; the archive job was throttled.")

H("es-0074", "2025-12-09T09:30", "LISTED", "mta-pool", "high",
  "Two shared-c IPs on Barracuda",
  "Barracuda lists 203.0.113.61 and 203.0.113.62 (shared-c) since last night. Education and small business "
  "domains refusing, about 3% of shared-c.",
  source="slack", reporter="dlv-tobias", sym=["blocklist-listing", "smtp-5xx-rejections"],
  err=["550 permanent failure - 203.0.113.61 blocked using b.barracudacentral.org"], start=600,
  fix="egress sources shared-c-61 and shared-c-62 suspended in KumoMTA; removal requests filed",
  delay=2910, by="dlv-tobias",
  cause="Barracuda listed two shared-c IPs after a sender's holiday blast to purchased school contacts",
  summary="Two shared-c IPs landed on Barracuda. Suspending both egress sources moved their traffic; Barracuda "
          "removed them two days later, when the outcome was recorded.")

H("es-0075", "2025-12-16T12:00", "WARMUP", "mta-pool", "high",
  "ded-greywick getting S77719 and TSS04, pool is 4 days old",
  "Greywick's new dedicated pool went out with their year-end statements (380k) on day 4. Outlook and Yahoo "
  "deferring almost all of it.",
  source="slack", reporter="dlv-keiko", sym=["smtp-4xx-deferrals"], start=80,
  fix="ded-greywick pinned at its day-4 step (25k/day) with shared-c as fallback pool",
  delay=180, by="dlv-keiko",
  cause="statement run scheduled on a four-day-old pool with a manual override of the warm-up cap",
  summary="A bank's statement run on a four-day-old pool far exceeded its warm-up step. Pinning the step with a "
          "shared fallback cleared the deferrals.")

H("es-0076", "2026-01-08T15:20", "BADLIST", "campaign-api", "medium",
  "New year send from Lumen & Lark bouncing a lot",
  "Lumen & Lark (acct 70233) mailed 'everyone who ever bought' this afternoon, including contacts re-imported from a "
  "2020 backup. Bounces 12%, 'user unknown' / 'no such mailbox', lots of domains.",
  source="support-ticket", reporter="support-rosa", sym=["hard-bounce-spike"],
  err=["550 5.1.1 <j.ortega@example.com>: Recipient address rejected: User unknown"], start=70,
  fix="all sending stopped for account 70233; compliance review opened",
  delay=90, by="dlv-tobias",
  cause="Lumen & Lark re-imported contacts from a 2020 backup, including long-dead addresses",
  summary="A customer mailed contacts from a five-year-old backup and bounced 12% on genuine no-such-user answers. "
          "Stopping the account ended it.")

P("es-0077", "2026-01-14T07:45", "MTACAP", "send-queue", "high", "SendQueueBacklogHigh",
  {"queue": "delivery.outlook"},
  "delivery.outlook ready messages 2.2M for 15m; outlook.com deferral ratio 0.01", start=15,
  delay=None)

P("es-0078", "2026-01-21T10:40", "RUNAWAY", "segmentation-engine", "high", "SegmentBuildSlow",
  {"shard": "e0-f0"},
  "p90 segment build 240s on shard e0-f0; replica lag 0s", start=10,
  delay=None)


# ---------------------------------------------------------------------------
# World state at a time t
# ---------------------------------------------------------------------------
CAT = [(ts(at), kind, payload) for at, kind, payload in CATALOG]
MIG = {name: (ts(m["at"]), m) for name, m in MIGRATIONS.items()}


def applied_runbooks(t):
    return {p[0] for at, k, p in CAT if k == "runbook" and at <= t}


def stale_runbooks(t):
    out = set()
    for _name, (at, m) in MIG.items():
        if at <= t:
            out.update(m["spec"]["impactedRunbooks"])
    return out


def arch(svc, t):
    a = ARCH_START.get(svc)
    for _name, (at, m) in sorted(MIG.items(), key=lambda kv: kv[1][0]):
        if at <= t and m["new_arch"][0] == svc:
            a = m["new_arch"][1]
    return a


def fits(rb, t):
    if rb not in applied_runbooks(t) or rb in stale_runbooks(t):
        return False
    if rb in RUNBOOK_ARCH:
        svc, need = RUNBOOK_ARCH[rb]
        return arch(svc, t) == need
    return True


def outcome_time(inc):
    return None if inc["delay"] is None else inc["at"] + timedelta(minutes=inc["delay"])


BY_ID = {i["id"]: i for i in INCIDENTS}


def derive_truth(inc):
    t = inc["at"]
    fam = inc["fam"]
    # the right runbook now: the first of the family's fixes that exists, is not
    # stale and fits the service's current architecture
    rb = next((r for r in FAMILIES[fam]["fixes"] if fits(r, t)), None)
    # precedents: same family (= same failure under the same condition), earlier,
    # outcome recorded before t; most recent first
    prec = [o for o in INCIDENTS if o["fam"] == fam and o["at"] < t
            and outcome_time(o) is not None and outcome_time(o) < t]
    prec.sort(key=lambda o: o["at"], reverse=True)
    unsafe = set(stale_runbooks(t))
    for o in prec:
        for r, _text, result in o["tried"]:
            if r and result == "failed":
                unsafe.add(r)
    unsafe.discard(rb)
    return {"precedents": [o["id"] for o in prec], "runbook": rb, "novel": not prec,
            "unsafeRunbooks": sorted(unsafe)}


def build_outcome(inc, truth):
    if inc["repage_of"]:
        orig = BY_ID[inc["repage_of"]]
        rb = truth["runbook"]
        actions = [{"action": "no separate action: re-page of %s, cleared by the fix recorded there" % orig["id"],
                    "result": "succeeded"}]
        summary = ("Re-page of %s: the same failure, alerting from %s while %s was open. No separate action; it "
                   "cleared when %s was fixed (%s)." % (orig["id"], inc["svc"], orig["id"], orig["id"], orig["fix"]))
        return {"rootCause": inc["cause"], "summary": summary, "runbook": rb, "actions": actions,
                "confirmedBy": inc["by"]}
    rb = truth["runbook"]
    actions = [{"action": text, "result": result} for _r, text, result in inc["tried"]]
    tried_rbs = {r for r, _t, _res in inc["tried"] if r}
    if rb and rb not in tried_rbs:
        actions.append({"action": "run runbook %s: %s" % (rb, inc["fix"]), "result": "succeeded"})
    else:
        actions.append({"action": inc["fix"], "result": "succeeded"})
    return {"rootCause": inc["cause"], "summary": inc["summary"], "runbook": rb, "actions": actions,
            "confirmedBy": inc["by"]}


def incident_object(inc):
    spec = {"service": inc["svc"], "severity": inc["sev"], "title": inc["title"]}
    if inc["desc"]:
        spec["description"] = inc["desc"]
    spec["symptoms"] = inc["sym"]
    spec["errorSignatures"] = inc["err"]
    if inc["dep"]:
        spec["deployment"] = inc["dep"]
    spec["startedAt"] = iso(inc["at"] - timedelta(minutes=inc["start"]))
    spec["labels"] = inc["labels"]
    return {"apiVersion": API, "kind": "Incident", "metadata": {"name": inc["id"]}, "spec": spec}


def catalog_object(kind, payload):
    if kind == "topology":
        return topology_cm(payload)
    if kind == "runbook":
        return runbook_manifest(*payload)
    if kind == "migration":
        return {"apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": payload},
                "spec": MIGRATIONS[payload]["spec"]}
    if kind == "contradiction":
        return {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": payload[0]},
                "spec": CONTRADICTIONS[payload]}
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# Checks on the story itself (fail loudly rather than write a bad file)
# ---------------------------------------------------------------------------
BANNED = re.compile(r"\b(restor\w*|drain\w*|shun\w*|paus\w*|back ?off\w*|scal(e|ed|es|ing)\b|challeng\w*|"
                    r"park\w*|cancel\w*|hold\w*|pull\w*|revert\w*|roll ?back\w*|runbook\w*|suspend\w*|delist\w*|"
                    r"reclassif\w*|re-classif\w*)", re.I)
RB_NAMES = sorted({n for n, _v in RUNBOOK_VERSIONS})


def check_story(truths):
    ids = [i["id"] for i in INCIDENTS]
    assert ids == ["es-%04d" % n for n in range(1, len(ids) + 1)], "ids not sequential"
    assert all(a["at"] < b["at"] for a, b in zip(INCIDENTS, INCIDENTS[1:])), "incidents not in time order"
    for inc in INCIDENTS:
        assert inc["fam"] in FAMILIES, inc["id"]
        obj = incident_object(inc)
        text = json.dumps(obj["spec"], ensure_ascii=False)
        m = BANNED.search(text)
        assert not m, "%s: incident text contains fix word %r" % (inc["id"], m.group(0))
        for n in RB_NAMES:
            assert n not in text, "%s names runbook %s" % (inc["id"], n)
        assert 0 < inc["start"] <= 600
        if inc["delay"] is not None and not inc["repage_of"]:
            assert inc["fix"] and inc["cause"] and inc["summary"] and inc["by"], inc["id"]
        for r, _t, _res in inc["tried"]:
            assert r is None or r in applied_runbooks(inc["at"]), (inc["id"], r)
        if inc["repage_of"]:
            o = BY_ID[inc["repage_of"]]
            assert o["fam"] == inc["fam"] and o["at"] < inc["at"]
            assert outcome_time(o) > inc["at"], "a re-page arrives while its original is open"
    # novel exactly for the first incident of each family
    firsts = {}
    for inc in INCIDENTS:
        firsts.setdefault(inc["fam"], inc["id"])
    novel = {i for i, t in truths.items() if t["novel"]}
    assert novel == set(firsts.values()), sorted(novel ^ set(firsts.values()))
    assert 8 <= len(novel) <= 14, len(novel)
    # family sizes
    for fam in FAMILIES:
        n = sum(1 for i in INCIDENTS if i["fam"] == fam)
        if fam.startswith("ONE-"):
            assert n == 1, fam
        else:
            assert 2 <= n <= 8, (fam, n)
    assert 65 <= len(INCIDENTS) <= 80
    assert sum(1 for i in INCIDENTS if i["delay"] is None) <= 3
    # contradictions: memories must be in memory when applied, and belong to its families
    for at, kind, payload in CAT:
        if kind != "contradiction":
            continue
        spec = CONTRADICTIONS[payload]
        fams = {f for f, d in FAMILIES.items() if d.get("contradiction") == payload[0]}
        assert len(fams) == 2
        for mname in spec["memories"]:
            o = BY_ID[mname]
            assert o["fam"] in fams, (payload, mname)
            assert outcome_time(o) is not None and outcome_time(o) < at, (payload, mname)
        assert [c["memory"] for c in spec["claims"]] == spec["memories"]


def build():
    truths = {inc["id"]: derive_truth(inc) for inc in INCIDENTS}
    check_story(truths)
    events = []
    seq = 0
    for at, kind, payload in CAT:
        events.append((at, seq, {"at": iso(at), "type": "apply", "object": catalog_object(kind, payload)}))
        seq += 1
    for inc in INCIDENTS:
        events.append((inc["at"], seq, {"at": iso(inc["at"]), "type": "incident", "object": incident_object(inc),
                                        "truth": truths[inc["id"]]}))
        seq += 1
        ot = outcome_time(inc)
        if ot is not None:
            events.append((ot, seq, {"at": iso(ot), "type": "outcome", "incident": inc["id"],
                                     "resolution": build_outcome(inc, truths[inc["id"]])}))
            seq += 1
    events.sort(key=lambda e: (e[0], e[1]))
    times = [e[0] for e in events]
    assert len(set(times)) == len(times), "two events at the same instant"
    return [e[2] for e in events], truths


def stats(events, truths):
    incs = INCIDENTS
    pages = sum(1 for i in incs if i["style"] == "page")
    out = {
        "events": len(events),
        "applies": sum(1 for e in events if e["type"] == "apply"),
        "incidents": len(incs), "outcomes": sum(1 for e in events if e["type"] == "outcome"),
        "pages": pages, "human": len(incs) - pages,
        "novel": sum(1 for t in truths.values() if t["novel"]),
        "novel_runbook_null": sum(1 for t in truths.values() if t["novel"] and t["runbook"] is None),
        "runbook_null": sum(1 for t in truths.values() if t["runbook"] is None),
        "with_unsafe": sum(1 for t in truths.values() if t["unsafeRunbooks"]),
        "failed_or_partial_outcomes": sum(1 for i in incs if i["tried"]),
        "failed_runbook_actions": sum(1 for i in incs for r, _t, res in i["tried"] if r and res == "failed"),
        "repages": sum(1 for i in incs if i["repage_of"]),
        "with_deployment": sum(1 for i in incs if i["dep"]),
        "runbooks": len(RB_NAMES),
        "runbook_applies": sum(1 for _a, k, _p in CAT if k == "runbook"),
    }
    fams = {}
    for i in incs:
        fams.setdefault(i["fam"], []).append(i["id"][3:])
    out["families"] = fams
    # recurrences whose right runbook differs from the latest precedent's outcome runbook
    diff = []
    for i in incs:
        t = truths[i["id"]]
        if t["precedents"]:
            last = BY_ID[t["precedents"][0]]
            if truths[last["id"]]["runbook"] != t["runbook"]:
                diff.append(i["id"][3:])
    out["runbook_differs_from_latest_precedent"] = diff
    out["unsafe_by_incident"] = {k[3:]: v["unsafeRunbooks"] for k, v in truths.items() if v["unsafeRunbooks"]}
    return out


def main():
    import sys
    events, truths = build()
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for e in events:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    if "--stats" in sys.argv:
        print(json.dumps(stats(events, truths), indent=1))


if __name__ == "__main__":
    main()
