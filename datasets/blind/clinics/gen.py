#!/usr/bin/env python3
"""Write history.jsonl for datasets/blind/clinics: Corvata, a FICTIONAL B2B healthcare
scheduling SaaS (clinic booking, patient reminders, EHR gateway, video visits,
billing and eligibility). Every service, tenant, hospital, person and incident
here is invented.

Standard library only, deterministic: the same bytes on every run. Prints one
line per incident: name, family, condition, and the answer key derived below.
`python3 gen.py --stats` prints the counts used in README.md instead.

The answer key (`truth`) is not written by hand. For every incident it is
derived from the incident's failure family, the condition its text shows, and
what the history holds at the incident's `at`:
  precedents      earlier incidents of the same family whose outcome was recorded
                  before `at`, most recent first (a contradiction family counts
                  all its conditions)
  novel           exactly when precedents is empty
  runbook         the first runbook of the family's fix list for this condition
                  that is in the catalog at `at` and not made stale by a
                  migration applied before `at`; null when none is
  unsafeRunbooks  runbooks made stale by a migration applied before `at`, plus
                  runbooks whose action failed in an earlier incident of the same
                  family and the same condition (outcome before `at`), minus this
                  incident's own runbook
"""
import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"


def T(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def fmt(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------
# Topology
# --------------------------------------------------------------------------
TOPOLOGY = [
    ("edge-proxy", ["patient-portal", "clinic-console", "staff-sso", "video-visits"]),
    ("patient-portal", ["booking-api", "slot-search", "video-visits", "billing-service"]),
    ("clinic-console", ["staff-sso", "booking-api", "slot-search", "ehr-bridge",
                        "billing-service", "eligibility-check", "reminder-dispatcher"]),
    ("staff-sso", ["tenant-db"]),
    ("booking-api", ["tenant-db", "slot-search", "job-queue", "eligibility-check"]),
    ("slot-search", []),
    ("job-workers", ["job-queue", "tenant-db", "slot-search", "reminder-dispatcher", "ehr-bridge"]),
    ("job-queue", []),
    ("reminder-dispatcher", ["tenant-db", "job-queue"]),
    ("ehr-bridge", ["tenant-db", "job-queue"]),
    ("video-visits", ["tenant-db", "booking-api"]),
    ("billing-service", ["tenant-db", "eligibility-check", "job-queue"]),
    ("eligibility-check", ["tenant-db"]),
    ("tenant-db", []),
    ("nat-egress", []),
]


def topology_yaml():
    lines = ["# Corvata production (fictional). An edge means 'calls'."]
    for svc, deps in TOPOLOGY:
        lines.append("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Runbooks
# --------------------------------------------------------------------------
OPS_SHELL = "ghcr.io/corvata/ops-shell:2024.09"
ADMIN = "ghcr.io/corvata/corvata-admin:2024.09"
AWS = "amazon/aws-cli:2.17.20"
PSQL = "postgres:15.8-alpine"
KUBECTL = "bitnami/kubectl:1.30.4"
WORKERS = "ghcr.io/corvata/job-workers:ops"


def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


def pgb(sql):
    return ["psql", "-h", "pgbouncer.tenant-db", "-p", "6432", "-U", "pgbouncer", "pgbouncer", "-c", sql]


def pg(sql, user="ops_admin"):
    return ["psql", "-h", "tenant-db-primary.tenant-db", "-U", user, "tenants", "-c", sql]


IDLE_CHECK = ("SELECT usename, count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' "
              "AND now() - xact_start > interval '30 seconds' GROUP BY 1")

RUNBOOKS = {}


def runbook(name, title, description, services, symptoms, steps):
    spec = {"title": title, "description": description, "services": services}
    if symptoms is not None:
        spec["symptoms"] = symptoms
    spec["steps"] = steps
    RUNBOOKS[name] = spec


runbook(
    "helm-rollback-release",
    "Roll a Helm release back to its previous revision",
    "Generic. Returns one service's Helm release to the revision before its most recent upgrade "
    "and waits for the pods to be ready. Meant for regressions that begin with a release of that "
    "service. It does not undo database migrations.",
    ["booking-api", "patient-portal", "clinic-console", "staff-sso", "reminder-dispatcher",
     "billing-service", "eligibility-check", "video-visits", "ehr-bridge", "job-workers"],
    None,
    [step("show-history", "alpine/helm:3.15.4",
          ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"],
          ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"],
          [], "low", "none (read-only)", 5),
     step("rollback-release", "alpine/helm:3.15.4",
          ["helm", "rollback", "$(RELEASE)", "0", "-n", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
          ["helm", "rollback", "$(RELEASE)", "0", "-n", "$(NAMESPACE)", "--dry-run"],
          ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "-n", "$(NAMESPACE)", "--wait"],
          "medium", "one service, all tenants", 300),
     step("verify-rollout", KUBECTL,
          ["kubectl", "rollout", "status", "deployment/$(RELEASE)", "-n", "$(NAMESPACE)", "--timeout=5m"],
          ["kubectl", "get", "deployment/$(RELEASE)", "-n", "$(NAMESPACE)", "-o", "wide"],
          [], "low", "none (read-only)", 60)])

POOL_STEPS = [
    step("show-pools", PSQL, pgb("SHOW POOLS"), pgb("SHOW POOLS"), [], "low", "none (read-only)", 5),
    step("raise-pool-size", PSQL, pgb("SET default_pool_size = $(POOL_SIZE)"), pgb("SHOW CONFIG"),
         pgb("SET default_pool_size = $(PREVIOUS_POOL_SIZE)"), "medium",
         "booking pool on both PgBouncer pods; more server connections on tenant-db", 20),
    step("persist-config", KUBECTL,
         ["kubectl", "-n", "tenant-db", "patch", "configmap", "pgbouncer-config", "--type", "merge",
          "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(POOL_SIZE)\"}}"],
         ["kubectl", "-n", "tenant-db", "patch", "configmap", "pgbouncer-config", "--type", "merge",
          "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(POOL_SIZE)\"}}", "--dry-run=server"],
         ["kubectl", "-n", "tenant-db", "patch", "configmap", "pgbouncer-config", "--type", "merge",
          "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(PREVIOUS_POOL_SIZE)\"}}"],
         "low", "PgBouncer settings after the next restart", 10),
]
runbook(
    "pgbouncer-raise-pool-size",
    "Raise the PgBouncer pool size for the booking pool",
    "For booking-api waiting on PgBouncer (cl_waiting growing, sv_active at the pool limit) while "
    "tenant-db still has CPU and connection headroom. Raises default_pool_size on both PgBouncer "
    "pods without dropping clients and keeps the value in the ConfigMap.",
    ["tenant-db", "booking-api"],
    ["connection-pool-exhausted", "latency-spike", "timeouts"],
    POOL_STEPS)
POOL_V2 = dict(RUNBOOKS["pgbouncer-raise-pool-size"])
POOL_V2["description"] = (
    "Revision 2. For booking-api waiting on PgBouncer (cl_waiting growing, sv_active at the pool "
    "limit) because of real traffic, with tenant-db CPU below about 60%. The first step lists "
    "sessions idle in transaction: if it shows more than a handful, stop here, a larger pool only "
    "runs tenant-db out of connection slots (see the contradiction booking-pool-exhaustion).")
POOL_V2["steps"] = [step("check-idle-in-transaction", PSQL, pg(IDLE_CHECK, "ops_ro"), pg(IDLE_CHECK, "ops_ro"),
                         [], "low", "none (read-only)", 5)] + POOL_STEPS

runbook(
    "tenantdb-terminate-idle-txn",
    "Terminate sessions idle in transaction on tenant-db",
    "Written after the December pool incident. For connection exhaustion caused by sessions left "
    "idle in transaction, usually by a job-workers role. Lists them, terminates those of one role "
    "older than a threshold, and sets idle_in_transaction_session_timeout on that role.",
    ["tenant-db"],
    ["idle-in-transaction", "connection-pool-exhausted", "timeouts"],
    [step("list-idle", PSQL,
          pg("SELECT pid, usename, application_name, now() - xact_start AS age FROM pg_stat_activity "
             "WHERE state = 'idle in transaction' ORDER BY age DESC LIMIT 50", "ops_ro"),
          pg("SELECT pid, usename, application_name, now() - xact_start AS age FROM pg_stat_activity "
             "WHERE state = 'idle in transaction' ORDER BY age DESC LIMIT 50", "ops_ro"),
          [], "low", "none (read-only)", 5),
     step("terminate-idle", PSQL,
          pg("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' "
             "AND usename = '$(ROLE)' AND now() - xact_start > interval '$(MIN_AGE)'"),
          pg("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' "
             "AND usename = '$(ROLE)' AND now() - xact_start > interval '$(MIN_AGE)'", "ops_ro"),
          [], "medium", "open transactions of one role are rolled back; its jobs retry", 15),
     step("set-role-timeout", PSQL,
          pg("ALTER ROLE $(ROLE) SET idle_in_transaction_session_timeout = '60s'"),
          pg("SELECT rolname, rolconfig FROM pg_roles WHERE rolname = '$(ROLE)'", "ops_ro"),
          pg("ALTER ROLE $(ROLE) RESET idle_in_transaction_session_timeout"),
          "low", "new sessions of one role", 5)])

runbook(
    "billing-pause-claims-batch",
    "Pause the claims batch and let go of its row locks",
    "Written after the November lock incident. Suspends billing-service's claims-batch CronJob and "
    "deletes the running job; its transaction rolls back and the row locks on appointments go "
    "away. The batch resumes later from its checkpoint.",
    ["billing-service", "tenant-db", "booking-api"],
    None,
    [step("suspend-cronjob", KUBECTL,
          ["kubectl", "-n", "billing", "patch", "cronjob", "claims-batch", "-p", "{\"spec\":{\"suspend\":true}}"],
          ["kubectl", "-n", "billing", "patch", "cronjob", "claims-batch", "-p", "{\"spec\":{\"suspend\":true}}",
           "--dry-run=server"],
          ["kubectl", "-n", "billing", "patch", "cronjob", "claims-batch", "-p", "{\"spec\":{\"suspend\":false}}"],
          "low", "claims submission only", 5),
     step("stop-running-batch", KUBECTL,
          ["kubectl", "-n", "billing", "delete", "job", "-l", "app=claims-batch", "--wait=true"],
          ["kubectl", "-n", "billing", "get", "jobs", "-l", "app=claims-batch"],
          [], "medium", "the current claims run starts again from its last checkpoint", 60),
     step("confirm-locks-gone", PSQL,
          pg("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
             "WHERE a.application_name = 'claims-batch'", "ops_ro"),
          pg("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
             "WHERE a.application_name = 'claims-batch'", "ops_ro"),
          [], "low", "none (read-only)", 5)])

ES = "http://es-master.slot-search:9200"
runbook(
    "search-es-clear-write-block",
    "Free disk on Elasticsearch data nodes and clear the read-only block",
    "For slot-search on self-managed Elasticsearch 7.17 (EC2) when a data node passed the 95% "
    "flood-stage watermark and its indices went read_only_allow_delete. Grows the node's data "
    "volume over SSH, then removes the block from all indices.",
    ["slot-search"],
    ["index-write-blocked", "disk-full", "stale-results"],
    [step("show-allocation", "curlimages/curl:8.8.0", ["curl", "-s", ES + "/_cat/allocation?v"],
          ["curl", "-s", ES + "/_cat/allocation?v"], [], "low", "none (read-only)", 5),
     step("grow-data-volume", OPS_SHELL,
          ["ssh", "ops@$(ES_NODE)", "sudo lvextend -r -L +$(EXTRA_GB)G /dev/vg_es/data"],
          ["ssh", "ops@$(ES_NODE)", "df -h /var/lib/elasticsearch"],
          [], "medium", "one data node's volume", 120),
     step("clear-read-only-block", "curlimages/curl:8.8.0",
          ["curl", "-s", "-X", "PUT", ES + "/_all/_settings", "-H", "Content-Type: application/json",
           "-d", "{\"index.blocks.read_only_allow_delete\": null}"],
          ["curl", "-s", ES + "/_all/_settings/index.blocks.*"],
          [], "low", "all indices", 10)])

OS_METRIC = ["aws", "cloudwatch", "get-metric-statistics", "--namespace", "AWS/ES", "--metric-name",
             "FreeStorageSpace", "--dimensions", "Name=DomainName,Value=slot-search",
             "Name=ClientId,Value=$(ACCOUNT_ID)", "--statistics", "Minimum", "--period", "300",
             "--start-time", "$(SINCE)", "--end-time", "$(NOW)"]
runbook(
    "opensearch-expand-storage",
    "Grow OpenSearch Service storage to lift the index write block",
    "For slot-search on Amazon OpenSearch Service when FreeStorageSpace falls below the service's "
    "threshold and it blocks index writes (ClusterIndexWritesBlocked, FORBIDDEN/8). Raises the EBS "
    "volume size of the data nodes; the service lifts the block itself once space is back.",
    ["slot-search"],
    ["index-write-blocked", "disk-full", "stale-results"],
    [step("show-free-storage", AWS, OS_METRIC, OS_METRIC, [], "low", "none (read-only)", 10),
     step("grow-volumes", AWS,
          ["aws", "opensearch", "update-domain-config", "--domain-name", "slot-search", "--ebs-options",
           "EBSEnabled=true,VolumeType=gp3,VolumeSize=$(SIZE_GB)"],
          ["aws", "opensearch", "update-domain-config", "--domain-name", "slot-search", "--ebs-options",
           "EBSEnabled=true,VolumeType=gp3,VolumeSize=$(SIZE_GB)", "--dry-run"],
          [], "medium", "slot-search domain (blue/green; searches keep working)", 2400),
     step("watch-change", AWS,
          ["aws", "opensearch", "describe-domain-change-progress", "--domain-name", "slot-search"],
          ["aws", "opensearch", "describe-domain-change-progress", "--domain-name", "slot-search"],
          [], "low", "none (read-only)", 10)])

runbook(
    "jobs-release-orphaned-locks",
    "Drop orphaned unique-job locks and queue the availability reindex again",
    "Written after the December stale-search incident. Deletes until_executed locks whose job is no "
    "longer queued or running (left behind when a worker dies mid-job), then queues the "
    "availability reindex of the affected tenant.",
    ["job-workers", "job-queue", "slot-search"],
    None,
    [step("count-locks", WORKERS, ["bin/rails", "ops:unique_locks:report[AvailabilityReindexJob]"],
          ["bin/rails", "ops:unique_locks:report[AvailabilityReindexJob]"], [], "low", "none (read-only)", 20),
     step("reap-orphans", WORKERS, ["bin/rails", "ops:unique_locks:reap"],
          ["bin/rails", "ops:unique_locks:reap", "DRY_RUN=1"], [], "low", "lock keys in job-queue", 30),
     step("reindex-tenant", WORKERS, ["bin/rails", "availability:reindex[$(TENANT)]"],
          ["bin/rails", "availability:reindex[$(TENANT)]", "DRY_RUN=1"], [], "low",
          "one tenant's availability documents", 300)])

runbook(
    "sms-switch-sender-pool",
    "Move a tenant's reminder texts to its registered 10DLC messaging service",
    "For reminder texts that the SMS provider accepts but that come back undelivered with carrier "
    "filtering errors (30007, 30034) because the tenant still sends from the shared long-code pool. "
    "Points the tenant at its registered A2P 10DLC messaging service and resends the undelivered "
    "reminders of the last 24 hours.",
    ["reminder-dispatcher"],
    ["sms-undelivered", "carrier-filtering"],
    [step("show-sender", ADMIN, ["corvata-admin", "sms", "sender", "show", "--tenant", "$(TENANT)"],
          ["corvata-admin", "sms", "sender", "show", "--tenant", "$(TENANT)"], [], "low", "none (read-only)", 5),
     step("set-sender", ADMIN,
          ["corvata-admin", "sms", "sender", "set", "--tenant", "$(TENANT)", "--messaging-service",
           "$(MESSAGING_SERVICE_SID)"],
          ["corvata-admin", "sms", "sender", "set", "--tenant", "$(TENANT)", "--messaging-service",
           "$(MESSAGING_SERVICE_SID)", "--dry-run"],
          ["corvata-admin", "sms", "sender", "set", "--tenant", "$(TENANT)", "--messaging-service",
           "$(PREVIOUS_SID)"],
          "medium", "one tenant's outbound texts", 10),
     step("resend-undelivered", ADMIN,
          ["corvata-admin", "reminders", "resend", "--tenant", "$(TENANT)", "--channel", "sms",
           "--status", "undelivered", "--since", "24h"],
          ["corvata-admin", "reminders", "resend", "--tenant", "$(TENANT)", "--channel", "sms",
           "--status", "undelivered", "--since", "24h", "--dry-run"],
          [], "low", "one tenant's patients (a few may get a text twice)", 120)])

runbook(
    "sms-throttle-send-rate",
    "Cap the reminder SMS send rate and queue rejected sends again",
    "For the SMS provider's API answering HTTP 429 (error 20429) during large reminder batches. "
    "Lowers reminder-dispatcher's SMS_MAX_RPS and queues the reminders that failed with 20429 again.",
    ["reminder-dispatcher", "job-workers"],
    ["rate-limited", "sms-undelivered"],
    [step("set-send-rate", KUBECTL,
          ["kubectl", "-n", "engagement", "set", "env", "deployment/reminder-dispatcher", "SMS_MAX_RPS=$(RPS)"],
          ["kubectl", "-n", "engagement", "set", "env", "deployment/reminder-dispatcher", "SMS_MAX_RPS=$(RPS)",
           "--dry-run=server", "-o", "yaml"],
          ["kubectl", "-n", "engagement", "set", "env", "deployment/reminder-dispatcher",
           "SMS_MAX_RPS=$(PREVIOUS_RPS)"],
          "low", "reminder-dispatcher (rolling restart)", 90),
     step("requeue-rejected", ADMIN,
          ["corvata-admin", "reminders", "requeue", "--error-code", "20429", "--since", "3h"],
          ["corvata-admin", "reminders", "requeue", "--error-code", "20429", "--since", "3h", "--dry-run"],
          [], "low", "reminders that failed in the last 3 hours", 120)])

runbook(
    "email-fallback-shared-domain",
    "Send a tenant's email from the shared Corvata domain",
    "For a tenant whose custom sending domain fails DKIM or DMARC (records removed, never added, or "
    "policy tightened), so mailbox providers reject its reminders and confirmations. Sends the "
    "tenant's mail from notify.corvata-mail.com until its DNS is fixed, then resends bounced mail.",
    ["reminder-dispatcher"],
    ["email-bounce", "reminders-missing"],
    [step("check-domain", ADMIN, ["corvata-admin", "email", "domain", "check", "--tenant", "$(TENANT)"],
          ["corvata-admin", "email", "domain", "check", "--tenant", "$(TENANT)"], [], "low", "none (read-only)", 10),
     step("use-shared-domain", ADMIN,
          ["corvata-admin", "email", "from-domain", "set", "--tenant", "$(TENANT)", "--shared"],
          ["corvata-admin", "email", "from-domain", "set", "--tenant", "$(TENANT)", "--shared", "--dry-run"],
          ["corvata-admin", "email", "from-domain", "set", "--tenant", "$(TENANT)", "--custom"],
          "low", "one tenant's outbound email", 10),
     step("resend-bounced", ADMIN,
          ["corvata-admin", "reminders", "resend", "--tenant", "$(TENANT)", "--channel", "email",
           "--status", "bounced", "--since", "72h"],
          ["corvata-admin", "reminders", "resend", "--tenant", "$(TENANT)", "--channel", "email",
           "--status", "bounced", "--since", "72h", "--dry-run"],
          [], "low", "one tenant's patients", 120)])

runbook(
    "jobqueue-prune-dead-retry",
    "Export and prune the job-queue dead and retry sets",
    "For job-queue (Redis 7, maxmemory 12 GB, noeviction) at its memory limit with enqueues failing "
    "with OOM, when the dead or retry set holds the memory. Exports both sets to S3, prunes the "
    "failing job class, and checks that memory is back under 70%.",
    ["job-queue", "job-workers"],
    ["redis-oom", "enqueue-failed", "queue-backlog"],
    [step("show-memory", "redis:7.2", ["redis-cli", "-h", "job-queue", "INFO", "memory"],
          ["redis-cli", "-h", "job-queue", "INFO", "memory"], [], "low", "none (read-only)", 5),
     step("export-sets", WORKERS,
          ["bin/rails", "ops:sidekiq:export_sets[dead,retry]", "BUCKET=s3://corvata-ops-archive/job-queue"],
          ["bin/rails", "ops:sidekiq:export_sets[dead,retry]", "BUCKET=s3://corvata-ops-archive/job-queue",
           "DRY_RUN=1"],
          [], "low", "none (copy only)", 300),
     step("prune-sets", WORKERS,
          ["bin/rails", "ops:sidekiq:prune_sets[dead,retry]", "CLASS=$(JOB_CLASS)"],
          ["bin/rails", "ops:sidekiq:prune_sets[dead,retry]", "CLASS=$(JOB_CLASS)", "DRY_RUN=1"],
          ["bin/rails", "ops:sidekiq:import_sets", "FROM=s3://corvata-ops-archive/job-queue/$(EXPORT_ID)"],
          "medium", "failed jobs of one class (kept in S3)", 120)])

runbook(
    "ehr-strongswan-restart-tunnel",
    "Re-establish a hospital's IPsec tunnel on the strongSwan hosts",
    "Tears down and initiates again the IKE and child SAs of one hospital on vpn-01 or vpn-02 "
    "(strongSwan). For a rekey that leaves a stale CHILD_SA, so that nothing arrives from the hospital.",
    ["ehr-bridge"],
    None,
    [step("show-sas", OPS_SHELL, ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --list-sas --ike $(CONNECTION)"],
          ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --list-sas --ike $(CONNECTION)"], [], "low", "none (read-only)", 5),
     step("terminate-ike", OPS_SHELL, ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --terminate --ike $(CONNECTION) --force"],
          ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --list-conns"], [], "medium",
          "one hospital's tunnel (all its HL7 traffic)", 10),
     step("initiate-child", OPS_SHELL, ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --initiate --child $(CONNECTION)-child"],
          ["ssh", "ops@$(VPN_HOST)", "sudo swanctl --list-sas --ike $(CONNECTION)"], [], "medium",
          "one hospital's tunnel (all its HL7 traffic)", 30)])

runbook(
    "ehr-awsvpn-replace-tunnel",
    "Replace a stuck AWS Site-to-Site VPN tunnel endpoint",
    "Added ahead of the VPN move. For a hospital VPN on AWS Site-to-Site VPN where a tunnel stays "
    "DOWN after the hospital's rekey, or is UP without routes. Replaces the AWS-side endpoint of the "
    "tunnel so IKE negotiates from scratch, then checks telemetry and the transit gateway routes.",
    ["ehr-bridge"],
    ["tunnel-down", "hl7-feed-stalled"],
    [step("show-telemetry", AWS,
          ["aws", "ec2", "describe-vpn-connections", "--vpn-connection-ids", "$(VPN_CONNECTION_ID)",
           "--query", "VpnConnections[0].VgwTelemetry"],
          ["aws", "ec2", "describe-vpn-connections", "--vpn-connection-ids", "$(VPN_CONNECTION_ID)",
           "--query", "VpnConnections[0].VgwTelemetry"],
          [], "low", "none (read-only)", 5),
     step("replace-tunnel", AWS,
          ["aws", "ec2", "replace-vpn-tunnel", "--vpn-connection-id", "$(VPN_CONNECTION_ID)",
           "--vpn-tunnel-outside-ip-address", "$(TUNNEL_OUTSIDE_IP)"],
          ["aws", "ec2", "replace-vpn-tunnel", "--vpn-connection-id", "$(VPN_CONNECTION_ID)",
           "--vpn-tunnel-outside-ip-address", "$(TUNNEL_OUTSIDE_IP)", "--dry-run"],
          [], "medium", "one tunnel of one hospital (the other tunnel stays)", 600),
     step("check-routes", AWS,
          ["aws", "ec2", "search-transit-gateway-routes", "--transit-gateway-route-table-id",
           "$(TGW_ROUTE_TABLE_ID)", "--filters", "Name=attachment.resource-id,Values=$(VPN_CONNECTION_ID)"],
          ["aws", "ec2", "search-transit-gateway-routes", "--transit-gateway-route-table-id",
           "$(TGW_ROUTE_TABLE_ID)", "--filters", "Name=attachment.resource-id,Values=$(VPN_CONNECTION_ID)"],
          [], "low", "none (read-only)", 10)])

EHRCTL = "ghcr.io/corvata/ehrctl:2024.11"
runbook(
    "ehr-skip-poison-message",
    "Park the failing head message of an HL7 channel",
    "Written after the November Merriwether incident. For an inbound HL7 channel whose ordered "
    "destination queue is stuck behind one message that fails every attempt while the connection is "
    "up and messages are ACKed. Moves the head message to the error store, watches the queue drain, "
    "and opens a ticket for the hospital's interface team.",
    ["ehr-bridge", "job-workers"],
    ["hl7-feed-stalled", "queue-backlog"],
    [step("show-head", EHRCTL, ["ehrctl", "channel", "head", "--channel", "$(CHANNEL)"],
          ["ehrctl", "channel", "head", "--channel", "$(CHANNEL)"], [], "low", "none (read-only)", 5),
     step("park-head", EHRCTL, ["ehrctl", "channel", "park-head", "--channel", "$(CHANNEL)", "--reason", "$(TICKET)"],
          ["ehrctl", "channel", "park-head", "--channel", "$(CHANNEL)", "--dry-run"],
          ["ehrctl", "errors", "replay", "--channel", "$(CHANNEL)", "--message", "$(MESSAGE_ID)"],
          "low", "one message of one hospital channel", 10),
     step("watch-drain", EHRCTL, ["ehrctl", "channel", "stats", "--channel", "$(CHANNEL)", "--watch", "120s"],
          ["ehrctl", "channel", "stats", "--channel", "$(CHANNEL)"], [], "low", "none (read-only)", 120)])

runbook(
    "eligibility-deferred-mode",
    "Switch insurance eligibility checks to deferred mode",
    "Flips the eligibility.mode flag so that bookings and claim pre-checks stop waiting on the "
    "clearinghouse: checks are queued and retried, and staff see 'verification pending'. Switch back "
    "once the clearinghouse answers normally.",
    ["eligibility-check", "booking-api", "billing-service"],
    None,
    [step("probe-clearinghouse", ADMIN, ["corvata-admin", "eligibility", "probe", "--payers", "top10"],
          ["corvata-admin", "eligibility", "probe", "--payers", "top10"], [], "low", "none (read-only)", 30),
     step("set-deferred", ADMIN, ["corvata-admin", "flags", "set", "eligibility.mode", "deferred"],
          ["corvata-admin", "flags", "set", "eligibility.mode", "deferred", "--dry-run"],
          ["corvata-admin", "flags", "set", "eligibility.mode", "realtime"],
          "low", "all tenants (coverage verified later)", 5),
     step("watch-queue", ADMIN, ["corvata-admin", "eligibility", "queue", "stats"],
          ["corvata-admin", "eligibility", "queue", "stats"], [], "low", "none (read-only)", 10)])

runbook(
    "video-resync-turn-secret",
    "Bring coturn up to date with the current TURN shared secret",
    "For relay allocations failing with 401 after the monthly TURN secret rotation: coturn reads its "
    "static-auth-secret only at start. Forces the secret sync into coturn's config and restarts the "
    "coturn pods one at a time.",
    ["video-visits"],
    ["video-connect-failed", "ice-failed"],
    [step("show-secret-versions", AWS, ["aws", "secretsmanager", "describe-secret", "--secret-id", "video/turn-shared-secret"],
          ["aws", "secretsmanager", "describe-secret", "--secret-id", "video/turn-shared-secret"],
          [], "low", "none (read-only)", 5),
     step("force-sync", KUBECTL,
          ["kubectl", "-n", "video", "annotate", "externalsecret", "coturn-auth", "force-sync=$(NOW)", "--overwrite"],
          ["kubectl", "-n", "video", "get", "externalsecret", "coturn-auth", "-o", "yaml"],
          [], "low", "coturn configuration", 30),
     step("restart-coturn", KUBECTL, ["kubectl", "-n", "video", "rollout", "restart", "statefulset/coturn"],
          ["kubectl", "-n", "video", "rollout", "status", "statefulset/coturn"], [], "medium",
          "relayed calls on each coturn pod reconnect once", 240)])

runbook(
    "sso-refresh-idp-metadata",
    "Refresh a clinic identity provider's SAML metadata in Keycloak",
    "Written after the October Osterley lock-out. For one clinic's staff failing SSO with "
    "invalid_signature after their IdP (Entra ID, Okta, AD FS) rolled its signing certificate. "
    "Imports the IdP metadata again into the clinic's Keycloak identity provider so the new "
    "certificate is trusted.",
    ["staff-sso", "clinic-console"],
    ["login-failed", "saml-signature-invalid"],
    [step("show-idp", "quay.io/keycloak/keycloak:24.0",
          ["/opt/keycloak/bin/kcadm.sh", "get", "identity-provider/instances/$(IDP_ALIAS)", "-r", "clinics"],
          ["/opt/keycloak/bin/kcadm.sh", "get", "identity-provider/instances/$(IDP_ALIAS)", "-r", "clinics"],
          [], "low", "none (read-only)", 5),
     step("import-metadata", ADMIN,
          ["corvata-admin", "sso", "idp", "refresh-metadata", "--tenant", "$(TENANT)", "--alias", "$(IDP_ALIAS)"],
          ["corvata-admin", "sso", "idp", "refresh-metadata", "--tenant", "$(TENANT)", "--alias", "$(IDP_ALIAS)",
           "--dry-run"],
          ["corvata-admin", "sso", "idp", "restore", "--alias", "$(IDP_ALIAS)", "--version", "$(PREVIOUS_VERSION)"],
          "low", "one clinic's staff logins", 15)])

runbook(
    "nat-egress-restart-top-talker",
    "Find the top conntrack source on a NAT instance and restart its owner",
    "For a nat-egress instance whose conntrack table is full, so the kernel drops new flows to every "
    "destination. Counts entries by source pod IP, restarts the deployment that owns the top source, "
    "and deletes that source's entries.",
    ["nat-egress"],
    None,
    [step("top-sources", OPS_SHELL,
          ["ssh", "ops@$(NAT_INSTANCE)", "sudo conntrack -L 2>/dev/null | grep -o 'src=[0-9.]*' | sort | uniq -c | sort -rn | head -20"],
          ["ssh", "ops@$(NAT_INSTANCE)", "sudo conntrack -C"], [], "low", "none (read-only)", 20),
     step("restart-owner", KUBECTL, ["kubectl", "-n", "$(NAMESPACE)", "rollout", "restart", "deployment/$(DEPLOYMENT)"],
          ["kubectl", "get", "pods", "-A", "-o", "wide", "--field-selector", "status.podIP=$(SOURCE_IP)"],
          [], "medium", "one deployment (rolling restart)", 180),
     step("flush-entries", OPS_SHELL, ["ssh", "ops@$(NAT_INSTANCE)", "sudo conntrack -D -s $(SOURCE_IP)"],
          ["ssh", "ops@$(NAT_INSTANCE)", "sudo conntrack -C"], [], "low", "existing flows of one pod IP", 10)])

# Which runbooks fix each family, in order of preference; the first one that
# is in the catalog and not stale at the incident's time is the answer.
FIXES = {
    ("REL", None): ["helm-rollback-release"],
    ("POOL", "surge"): ["pgbouncer-raise-pool-size"],
    ("POOL", "idle-txn"): ["tenantdb-terminate-idle-txn"],
    ("LOCKS", None): ["billing-pause-claims-batch"],
    ("SEARCHBLOCK", None): ["search-es-clear-write-block", "opensearch-expand-storage"],
    ("INDEXLOCK", None): ["jobs-release-orphaned-locks"],
    ("SMS", "carrier"): ["sms-switch-sender-pool"],
    ("SMS", "ratelimit"): ["sms-throttle-send-rate"],
    ("EMAIL", None): ["email-fallback-shared-domain"],
    ("QUEUEOOM", None): ["jobqueue-prune-dead-retry"],
    ("VPN", None): ["ehr-strongswan-restart-tunnel", "ehr-awsvpn-replace-tunnel"],
    ("HL7POISON", None): ["ehr-skip-poison-message"],
    ("ELIG", None): ["eligibility-deferred-mode"],
    ("TURN", None): ["video-resync-turn-secret"],
    ("SAMLCERT", None): ["sso-refresh-idp-metadata"],
    ("NAT", None): ["nat-egress-restart-top-talker"],
}
ONE_OFF = ("ONEOFF-IFRAME", "ONEOFF-TZ", "ONEOFF-ALLOWLIST")

# --------------------------------------------------------------------------
# Incidents
# --------------------------------------------------------------------------
INCIDENTS = []


def O(delay, root, summary, actions, by, runbook=None):  # noqa: E743 (the outcomes table reads as O(...) rows)
    return {"delay": delay, "root": root, "summary": summary, "actions": actions, "by": by,
            "runbook": runbook}


def inc(key, at, fam, cond, svc, sev, title, desc=None, sym=None, sigs=None, dep=None,
        labels=None, start=20, out=None):
    INCIDENTS.append(dict(key=key, at=T(at), fam=fam, cond=cond, svc=svc, sev=sev, title=title,
                          desc=desc, sym=sym, sigs=sigs, dep=dep, labels=labels or {}, start=start,
                          out=out))


def alert(name, sev, team, extra=None, region="us-east-2"):
    d = {"alertname": name, "source": "alertmanager", "severity": sev, "team": team, "region": region}
    d.update(extra or {})
    return d


def deploy(service, rev, minutes):
    return {"id": "%s-%s" % (service, rev), "revision": rev, "environment": "production",
            "minutesSinceDeploy": minutes}


def rb(name):
    return "run runbook " + name


# ---- 2024-10 -------------------------------------------------------------
inc("SMS1", "2024-10-04T13:12", "SMS", "carrier", "reminder-dispatcher", "high",
    "Quillfield Family Medicine: patients not receiving appointment reminder texts since Tuesday",
    "Relayed from Zendesk #48213 by customer success. Quillfield's front desk says about half of the "
    "patients they phoned this morning never got the 24-hour reminder text, and no-shows doubled this "
    "week. Email reminders arrive fine. In our console the texts show as sent and accepted by the SMS "
    "provider, but the delivery receipts come back undelivered. Quillfield joined us three weeks ago.",
    ["sms-undelivered", "reminders-missing"],
    ["status_callback MessageStatus=undelivered ErrorCode=30034 To=+1480555**** tenant=quillfield-fm",
     "status_callback MessageStatus=undelivered ErrorCode=30007 To=+1602555**** tenant=quillfield-fm"],
    labels={"source": "zendesk", "tenant": "quillfield-fm", "team": "engagement"}, start=240,
    out=O(95, "US carriers filtered Quillfield's reminder texts because they went out from the shared, "
              "unregistered long-code pool (receipts 30034 and 30007); the provider accepted every message "
              "and the carriers dropped about half of them.",
          "Quillfield was onboarded onto the shared sender pool while its A2P 10DLC campaign registration "
          "was pending; the registration had been approved two days before the ticket. The provider's API "
          "and status page were normal. Moving the tenant to its registered messaging service with "
          "sms-switch-sender-pool brought delivery back to 99% from the next batch, and the undelivered "
          "reminders of the last 24 hours were sent again.",
          [("checked the SMS provider status page and API responses: no incident, all sends answered 201", "succeeded", None),
           (rb("sms-switch-sender-pool") + " for tenant quillfield-fm", "succeeded", "sms-switch-sender-pool")],
          "kofi.m", "sms-switch-sender-pool"))

inc("REL1", "2024-10-09T15:41", "REL", None, "booking-api", "critical",
    "BookingApiHighErrorRate booking-api",
    "5xx ratio on booking-api above 5% for 10m",
    ["5xx", "latency-spike"],
    ['sum(rate(http_server_requests_seconds_count{service="booking-api",status=~"5.."}[5m])) / '
     'sum(rate(http_server_requests_seconds_count{service="booking-api"}[5m])) > 0.05 (value: 0.214)'],
    dep=deploy("booking-api", "2024.10.3", 14),
    labels=alert("BookingApiHighErrorRate", "critical", "scheduling"), start=4,
    out=O(38, "booking-api 2024.10.3 shipped a rewritten availability endpoint that queried each appointment "
              "type separately (an N+1 query); under afternoon load requests hit the 10 s timeout and "
              "returned 503.",
          "p99 of GET /v2/availability went from 240 ms to 11 s after the 2024.10.3 release and 21% of "
          "booking-api requests failed. helm-rollback-release took booking-api back to 2024.10.2 and the "
          "errors stopped within four minutes. The query was batched in 2024.10.4.",
          [(rb("helm-rollback-release") + " for booking-api", "succeeded", "helm-rollback-release")],
          "lena.h", "helm-rollback-release"))

inc("SRCH1", "2024-10-14T10:20", "SEARCHBLOCK", None, "slot-search", "high",
    "slot-search rejecting writes, availability stuck since about 05:50 UTC",
    "On-call note (platform). Index writes to availability-v3 fail for every tenant; searches still "
    "answer but show whatever was indexed before 05:50. Two clinics already reported double bookings "
    "from online holds. es-data-04 and es-data-05 are at 95% disk after the nightly snapshot staging "
    "filled /var/lib/elasticsearch. Reads fine, no node down.",
    ["index-write-blocked", "stale-results", "disk-full", "double-booking"],
    ["ClusterBlockException[index [availability-v3] blocked by: [FORBIDDEN/12/index read-only / allow delete (api)];]",
     "[WARN][o.e.c.r.a.DiskThresholdMonitor] flood stage disk watermark [95%] exceeded on [es-data-04]"
     "[/var/lib/elasticsearch] free: 21.3gb[4.6%], all indices on this node will be marked read-only"],
    labels={"source": "oncall", "team": "platform", "region": "us-east-2"}, start=270,
    out=O(70, "Nightly snapshot staging files filled two Elasticsearch data nodes past the 95% flood-stage "
              "watermark, so Elasticsearch marked every index with a shard there read_only_allow_delete; "
              "availability updates and short slot holds were rejected for all tenants.",
          "Because slot holds live in the same index, two clinics got double bookings from the portal. "
          "search-es-clear-write-block grew the data volumes of es-data-04 and es-data-05 and cleared the "
          "read-only block; the indexer's backlog of 38k updates drained in 12 minutes. Snapshot staging "
          "was moved off the data volume the same day.",
          [(rb("search-es-clear-write-block") + " on es-data-04 and es-data-05", "succeeded",
            "search-es-clear-write-block")],
          "tomas.v", "search-es-clear-write-block"))

inc("SAML1", "2024-10-17T14:05", "SAMLCERT", None, "staff-sso", "high",
    "Osterley Dermatology staff locked out of the console: 'invalid signature' after the Microsoft sign-in",
    "Verbatim from Osterley's practice manager via CS: \"Nobody at any of our three locations can get "
    "in since about 9am. It takes us to the Microsoft page, we sign in, then your page says something "
    "went wrong, invalid signature. Our IT guy says he didn't change anything on our side except 'the "
    "yearly certificate thing'. We have patients checking in and can't see the schedule.\" Other "
    "clinics on SSO are fine; password logins are fine.",
    ["login-failed", "saml-signature-invalid"],
    ["type=IDENTITY_PROVIDER_LOGIN_ERROR, realmId=clinics, clientId=clinic-console, "
     "identity_provider=osterley-entra, error=invalid_signature",
     "ERROR [org.keycloak.broker.saml.SAMLEndpoint] Validation of signature of SAML response failed"],
    labels={"source": "zendesk", "tenant": "osterley-derm", "team": "identity"}, start=65,
    out=O(150, "Osterley's Microsoft Entra ID tenant activated a new SAML token-signing certificate; our "
               "Keycloak identity provider for Osterley still held the old certificate, so every SAML "
               "response failed signature validation.",
          "The clinic's IT rolled the Entra signing certificate on its yearly schedule. Keycloak had the "
          "old certificate pasted in statically instead of reading the metadata URL. Clearing cookies did "
          "nothing. We downloaded Osterley's new federation metadata and pasted the certificate into the "
          "osterley-entra identity provider by hand, and staff could sign in again. A runbook to refresh "
          "a tenant's IdP metadata was written afterwards.",
          [("asked the clinic to clear browser cookies and try again", "failed", None),
           ("imported the new signing certificate from Osterley's federation metadata into Keycloak by hand",
            "succeeded", None)],
          "amir.s"))

inc("QOOM1", "2024-10-23T12:48", "QUEUEOOM", None, "booking-api", "critical",
    "JobEnqueueFailures booking-api",
    "booking-api cannot push jobs to job-queue",
    ["enqueue-failed", "redis-oom"],
    ['sum(rate(job_enqueue_errors_total{service="booking-api"}[5m])) > 1 (value: 63.4)'],
    labels=alert("JobEnqueueFailures", "critical", "scheduling"), start=3,
    out=O(55, "job-queue's Redis reached maxmemory (policy noeviction) because the dead set held 410k failed "
              "HL7 import jobs, each carrying a whole batch file in its arguments; every enqueue then "
              "failed with an OOM error.",
          "An EHR import job class started failing on a malformed batch from one hospital and retried into "
          "the dead set with 20 KB payloads until Redis hit its 12 GB limit. Booking confirmations, "
          "reminders and index updates could not be queued. Restarting job-workers did nothing because "
          "the memory was held by the sets. jobqueue-prune-dead-retry exported the sets to S3 and pruned "
          "the failing class, freeing 9.8 GB; queuing worked again at once.",
          [("restarted the job-workers deployment", "failed", None),
           (rb("jobqueue-prune-dead-retry") + " for EhrBatchImportJob", "succeeded", "jobqueue-prune-dead-retry")],
          "lena.h", "jobqueue-prune-dead-retry"))

inc("VPN1", "2024-10-29T06:30", "VPN", None, "ehr-bridge", "high",
    "No ADT/SIU traffic from St. Aurelia Medical Center since 05:58",
    "ehr-bridge on-call. The St. Aurelia inbound MLLP listener has had no connection for 30 min; "
    "normally about 40 msg/min even at night. Other hospitals are flowing. On vpn-01 the IKE SA to St. "
    "Aurelia is ESTABLISHED but the child SA shows 0 bytes in, and the hospital can't reach 10.40.8.12. "
    "Their firewall admin says their side rekeyed at 05:57.",
    ["hl7-feed-stalled", "tunnel-down"],
    ["charon: 09[IKE] received DELETE for ESP CHILD_SA with SPI c3a1f20e, but no such SA",
     "charon: 11[CHD] CHILD_SA staurelia-child{412} state change: INSTALLED => REKEYED"],
    labels={"source": "oncall", "team": "interop", "hospital": "st-aurelia", "region": "us-east-2"}, start=32,
    out=O(40, "After St. Aurelia's firewall rekeyed the IPsec child SA, strongSwan on vpn-01 kept the old "
              "CHILD_SA installed while the peer had deleted it (a rekey collision), so traffic from the "
              "hospital was dropped.",
          "ehr-strongswan-restart-tunnel tore down and initiated the St. Aurelia IKE and child SAs on "
          "vpn-01 again; the hospital's MLLP client reconnected within a minute and its queue of 1,260 "
          "messages drained in 9 minutes.",
          [(rb("ehr-strongswan-restart-tunnel") + " for staurelia on vpn-01", "succeeded",
            "ehr-strongswan-restart-tunnel")],
          "jo.baptiste", "ehr-strongswan-restart-tunnel"))

# ---- 2024-11 -------------------------------------------------------------
inc("POOL1", "2024-11-04T13:03", "POOL", "surge", "booking-api", "critical",
    "booking-api p99 8s at Monday open, PgBouncer clients waiting",
    "Scheduling on-call. Monday 08:00 ET open, about 3x the usual traffic (first Monday after the clock "
    "change plus holiday bookings). The booking pool in PgBouncer is maxed: sv_active 40/40, cl_waiting "
    "260. Postgres itself looks bored: CPU 34%, no lock waits, pg_stat_activity almost all 'active' "
    "short queries, nothing idle in transaction. Hikari timeouts in booking-api.",
    ["connection-pool-exhausted", "latency-spike", "timeouts"],
    ["HikariPool-1 - Connection is not available, request timed out after 30000ms.",
     "pgbouncer SHOW POOLS: booking booking_rw cl_active=40 cl_waiting=262 sv_active=40 sv_idle=0 maxwait=19"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=6,
    out=O(35, "A real Monday-open traffic surge (about 3x) needed more server connections than the booking "
              "pool's default_pool_size of 40; tenant-db itself had plenty of headroom.",
          "pgbouncer-raise-pool-size raised default_pool_size of the booking pool from 40 to 70; cl_waiting "
          "fell to 0 and p99 returned to 300 ms. tenant-db peaked at 52% CPU and 180 of its 400 connections.",
          [(rb("pgbouncer-raise-pool-size") + " (booking pool 40 to 70)", "succeeded", "pgbouncer-raise-pool-size")],
          "lena.h", "pgbouncer-raise-pool-size"))

inc("HL7P1", "2024-11-06T16:22", "HL7POISON", None, "ehr-bridge", "high",
    "Merriwether Regional: appointments booked in their EHR not showing in our schedule since this morning",
    "From CS (ticket #49107): Merriwether's scheduling office books specialist referrals in their EHR "
    "and they normally appear in our clinic console within a minute. Since about 10:40 local nothing "
    "has come across. Their interface analyst says the connection is up on their end and they get an "
    "ACK from us for every message. Other hospitals seem fine.",
    ["hl7-feed-stalled", "queue-backlog"],
    ["ERROR [merriwether-siu-in] Destination 'write-appointments' failed: ca.uhn.hl7v2.model.DataTypeException: "
     "Failed validation rule: Invalid date/time 20241306143000 in SCH-11",
     "WARN  [merriwether-siu-in] destination queue size=2841, head message id=88213004 attempt=612"],
    labels={"source": "zendesk", "hospital": "merriwether", "team": "interop"}, start=340,
    out=O(180, "One SIU^S12 message from Merriwether carried an impossible timestamp (month 13) in SCH-11; "
               "the channel's ordered destination queue retried it forever and every later message queued "
               "behind it.",
          "The tunnel and MLLP connection were healthy; ehr-bridge ACKs on receipt, so the hospital saw "
          "nothing wrong. The on-call first re-established the IPsec tunnel with "
          "ehr-strongswan-restart-tunnel, which dropped two other hospitals' feeds for a minute and "
          "changed nothing. Moving the head message to the error store by hand unblocked the queue and "
          "2,841 messages were processed in 14 minutes. Merriwether corrected the appointment at the "
          "source. A runbook for parking the head message was written afterwards.",
          [(rb("ehr-strongswan-restart-tunnel") + " for merriwether", "failed", "ehr-strongswan-restart-tunnel"),
           ("moved message 88213004 to the error store by hand in the ehr-bridge admin UI", "succeeded", None)],
          "jo.baptiste"))

inc("ELIG1", "2024-11-12T15:10", "ELIG", None, "booking-api", "high",
    "Front desk can't finish bookings, stuck on 'Verifying insurance...'",
    "Relayed verbatim from Redfern Cardiology Group (chat): \"every new patient booking hangs at verifying "
    "insurance and then times out, we have a line at the desk. existing patients without insurance "
    "changes are ok.\" CS checked three other tenants: same. booking-api POST /appointments p95 is 31 s.",
    ["timeouts", "latency-spike"],
    ["EligibilityClient - 270 request to clearinghouse timed out after 30000 ms (payer=AETNA, tenant=redfern-cardio)",
     "booking-api WARN Appointment create blocked on eligibility check, waited 30.1s"],
    labels={"source": "intercom", "tenant": "redfern-cardio", "team": "scheduling"}, start=40,
    out=O(60, "The eligibility clearinghouse (Vantor Exchange) had a partial outage: real-time 270/271 "
              "requests for several payers timed out after 30 s, and booking waited on them synchronously.",
          "Vantor's status page confirmed degraded real-time eligibility at 15:25. eligibility-deferred-mode "
          "let bookings complete at once and queued 1,900 checks, which finished after Vantor recovered at "
          "17:40. The flag went back to realtime at 17:55.",
          [(rb("eligibility-deferred-mode"), "succeeded", "eligibility-deferred-mode")],
          "priya.n", "eligibility-deferred-mode"))

inc("SMS2", "2024-11-15T13:05", "SMS", "carrier", "reminder-dispatcher", "high",
    "SmsDeliveryRateLow reminder-dispatcher",
    "SMS delivered ratio below 85% for tenant pellham-wh, carrier error 30007",
    ["sms-undelivered", "carrier-filtering"],
    ['sum(rate(sms_status_total{status="delivered",tenant="pellham-wh"}[30m])) / '
     'sum(rate(sms_status_total{tenant="pellham-wh"}[30m])) < 0.85 (value: 0.41) error_code="30007"'],
    labels=alert("SmsDeliveryRateLow", "high", "engagement", {"tenant": "pellham-wh", "error_code": "30007"}),
    start=5,
    out=O(80, "Carriers filtered Pellham Women's Health reminders sent from the shared long-code pool "
              "(30007); Pellham's text contains a shortened link, which carriers flag on unregistered numbers.",
          "Pellham had been left on the shared pool when it moved from the old plan. sms-switch-sender-pool "
          "moved it to its registered 10DLC messaging service and delivery went back to 98%.",
          [(rb("sms-switch-sender-pool") + " for tenant pellham-wh", "succeeded", "sms-switch-sender-pool")],
          "kofi.m", "sms-switch-sender-pool"))

inc("NAT1", "2024-11-19T13:30", "NAT", None, "eligibility-check", "high",
    "eligibility-check: connect timeouts to the clearinghouse, but Vantor says all green",
    "Revenue on-call. About 30% of 270 requests fail with a connect timeout since 13:10. Vantor's status "
    "page is green and their support sees no traffic from us for the failed ones, so they never reach "
    "them. Not the outage from last week: that was slow answers, this is connections that never open. "
    "Also seeing sporadic timeouts to Stripe from billing-service.",
    ["egress-timeouts", "timeouts"],
    ["java.net.SocketTimeoutException: Connect timed out (host=api.vantorexchange.com:443)",
     "billing-service WARN stripe: Post \"https://api.stripe.com/v1/payment_intents\": dial tcp: i/o timeout"],
    labels={"source": "oncall", "team": "revenue", "region": "us-east-2"}, start=20,
    out=O(75, "The conntrack table of nat-egress-a (262,144 entries) filled up: a reminder-dispatcher pod "
              "stuck in a reconnect loop to the email provider opened about 2,000 connections per second, "
              "and the NAT instance dropped new flows to every destination.",
          "Outbound calls from all services behind nat-egress-a failed to connect, whichever partner they "
          "went to. nat-egress-restart-top-talker showed one reminder-dispatcher pod as the source of 78% "
          "of the entries; restarting reminder-dispatcher and deleting that pod's entries brought the table "
          "to 9% and the clearinghouse calls recovered within two minutes.",
          [(rb("nat-egress-restart-top-talker") + " on nat-egress-a", "succeeded", "nat-egress-restart-top-talker")],
          "sam.o", "nat-egress-restart-top-talker"))

inc("TURN1", "2024-11-22T17:40", "TURN", None, "video-visits", "high",
    "Video visits: patients stuck on 'Connecting...', providers see a black tile",
    "Zendesk #50022 and six similar tickets since 16:00 UTC, across tenants (Kestrel Valley, Amberlane "
    "Pediatrics, Corran Eye). Mostly patients on hospital guest Wi-Fi or office networks; patients on "
    "home broadband mostly connect. Providers get into the room. #platform says the monthly secrets "
    "rotation ran at 15:45, probably unrelated.",
    ["video-connect-failed", "ice-failed"],
    ["ICE connection state: failed (candidates gathered: host, srflx; relay: 0)",
     "coturn: session 001000000000004412: realm <turn.corvata.health> user <1732301400:pt-77f1>: "
     "incoming packet message processed, error 401: Unauthorized"],
    labels={"source": "zendesk", "team": "virtual-care"}, start=95,
    out=O(65, "The monthly rotation changed the TURN shared secret in the video-visits token service, but "
              "coturn reads static-auth-secret only at start; relay allocations with credentials from the "
              "new secret were rejected with 401, so patients behind restrictive NATs could not connect.",
          "video-resync-turn-secret forced the secret sync and restarted the coturn pods one by one; relay "
          "candidates came back and failed visits stopped. 37 visits were affected over two hours.",
          [(rb("video-resync-turn-secret"), "succeeded", "video-resync-turn-secret")],
          "rhea.k", "video-resync-turn-secret"))

inc("LOCK1", "2024-11-26T15:20", "LOCKS", None, "booking-api", "critical",
    "booking-api writes timing out, reads fine",
    "Scheduling on-call. Since 15:02 UTC about 18% of POST/PATCH /appointments fail after 5 s; GETs are "
    "normal. Looked like the Monday pool problem at first, but PgBouncer shows cl_waiting 0 and idle "
    "server connections to spare. The errors are lock timeouts on appointments rows, and pg_locks shows "
    "a long transaction from billing_rw.",
    ["lock-contention", "timeouts", "5xx"],
    ["org.postgresql.util.PSQLException: ERROR: canceling statement due to lock timeout  Where: while "
     "updating tuple (18211,7) in relation \"appointments\"",
     "pg_locks: pid 88412 (billing_rw, application_name=claims-batch) granted RowShareLock on appointments, "
     "xact_start 14:58:03"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=18,
    out=O(90, "billing-service's claims batch, started again during business hours after its 06:00 "
              "failure, selected the day's appointments FOR UPDATE in one long transaction; booking-api "
              "updates of those rows waited and hit the 5 s lock_timeout.",
          "A larger booking pool (70 to 100 with pgbouncer-raise-pool-size) only added more waiters: these "
          "were lock waits, not pool waits. Cancelling the running claims job and suspending its CronJob by "
          "hand released the locks at once. The batch ran again at 02:00 after the nightly path was changed "
          "to lock in small chunks. A runbook for pausing the batch was written afterwards.",
          [(rb("pgbouncer-raise-pool-size") + " (booking pool 70 to 100)", "failed", "pgbouncer-raise-pool-size"),
           ("cancelled the running claims-batch job and suspended its CronJob by hand", "succeeded", None)],
          "lena.h"))

# ---- 2024-12 -------------------------------------------------------------
inc("REL2", "2024-12-03T16:05", "REL", None, "patient-portal", "high",
    "Patient portal: 'Something went wrong' when picking a time slot",
    "Several patients and two clinics (Linden & Moss Physio, Halewood Family Practice) report that the "
    "booking page fails at the last step. patient-portal logs 400s from booking-api on POST "
    "/v2/appointments. The portal itself hasn't shipped since last week.",
    ["error-rate", "deploy-regression"],
    ["patient-portal ERROR booking-api POST /v2/appointments -> 400 "
     "{\"error\":\"validation_failed\",\"field\":\"slot_id\",\"message\":\"must not be null\"}"],
    dep=deploy("booking-api", "2024.12.1", 27),
    labels={"source": "zendesk", "team": "scheduling"}, start=25,
    out=O(30, "booking-api 2024.12.1 renamed the request field slotId to slot_id without still accepting the "
              "old name; patient-portal kept sending slotId, so every portal booking failed validation.",
          "helm-rollback-release took booking-api back to 2024.11.4 and portal bookings succeeded again. "
          "The change was shipped again in 2024.12.2, accepting both names.",
          [(rb("helm-rollback-release") + " for booking-api", "succeeded", "helm-rollback-release")],
          "lena.h", "helm-rollback-release"))

inc("EML1", "2024-12-06T14:30", "EMAIL", None, "reminder-dispatcher", "medium",
    "Kestrel Valley Clinic: reminder and confirmation emails bouncing",
    "Kestrel Valley's office manager forwarded a patient's complaint; our email events show a bounce "
    "for most Gmail and Yahoo recipients since Wednesday. Their reminders go out from "
    "reminders@kestrelvalleyclinic.com (custom sending domain). SMS reminders are fine. They mentioned "
    "moving their website and DNS to a new host last week.",
    ["email-bounce", "reminders-missing"],
    ["sendgrid event=bounce type=blocked reason=\"550 5.7.26 Unauthenticated email from kestrelvalleyclinic.com "
     "is not accepted due to domain's DMARC policy\"",
     "Authentication-Results: dkim=none (no key for signature) header.d=kestrelvalleyclinic.com"],
    labels={"source": "zendesk", "tenant": "kestrel-valley", "team": "engagement"}, start=180,
    out=O(120, "When Kestrel Valley moved its DNS hosting, the DKIM CNAME records for our email provider "
               "(s1 and s2._domainkey) were not created again; with its DMARC policy, Gmail and Yahoo "
               "rejected the unsigned mail.",
          "email-fallback-shared-domain moved Kestrel's mail to the shared Corvata sending domain and sent "
          "the 640 bounced messages again. The clinic's IT added the CNAMEs back on 12-09 and the custom "
          "domain was restored.",
          [(rb("email-fallback-shared-domain") + " for tenant kestrel-valley", "succeeded",
            "email-fallback-shared-domain")],
          "kofi.m", "email-fallback-shared-domain"))

inc("IDX1", "2024-12-10T18:10", "INDEXLOCK", None, "slot-search", "high",
    "Corran Eye: online booking shows slots that are already taken",
    "Relayed verbatim from Corran Eye Associates: \"Patients keep trying to book Dr. Osei's Thursday "
    "times that were filled days ago and then get an error. Our schedule in the console is right, it's "
    "the online page that's wrong.\" Checked: slot-search returns Dr. Osei's old availability, while "
    "writes to the index work (other providers updated a minute ago). No cluster block, disk at 61%.",
    ["stale-results"],
    ["booking-api 409 SLOT_UNAVAILABLE provider=corran-osei slot=2024-12-12T14:30",
     "SidekiqUniqueJobs::Lock::UntilExecuted - Skipping job AvailabilityReindexJob(provider=corran-osei), "
     "digest uniquejobs:5e1c0a91 already locked"],
    labels={"source": "zendesk", "tenant": "corran-eye", "team": "scheduling"}, start=120,
    out=O(140, "A job-workers pod OOM-killed in the middle of a job left the until_executed lock of "
               "AvailabilityReindexJob for Dr. Osei's calendar in job-queue; every later reindex job for "
               "that provider was dropped as a duplicate, so the index kept six-day-old availability.",
          "The index was writable. The on-call first ran search-es-clear-write-block, which found no block "
          "and changed nothing. Deleting the orphaned unique-job locks from a job-workers console and "
          "reindexing the tenant fixed the results; 14 providers in 5 tenants had stale locks. A runbook "
          "was written afterwards.",
          [(rb("search-es-clear-write-block"), "failed", "search-es-clear-write-block"),
           ("deleted the orphaned AvailabilityReindexJob locks from a job-workers console and reindexed "
            "corran-eye by hand", "succeeded", None)],
          "tomas.v"))

inc("POOL2", "2024-12-12T14:02", "POOL", "idle-txn", "booking-api", "critical",
    "booking-api timeouts again, PgBouncer pool full, but the DB has 190 idle-in-transaction sessions",
    "Scheduling on-call. Same Hikari timeouts as the Monday open in November, but traffic is normal for "
    "a Thursday. tenant-db shows 190 sessions 'idle in transaction' for 4 to 20 minutes, role "
    "workers_rw, application job-workers. Only about 25 active queries. tenant-db CPU 18%.",
    ["connection-pool-exhausted", "timeouts", "idle-in-transaction"],
    ["HikariPool-1 - Connection is not available, request timed out after 30000ms.",
     "pg_stat_activity: 190 rows state='idle in transaction' usename=workers_rw application_name=job-workers "
     "max(now()-xact_start)=00:19:42"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=15,
    out=O(70, "job-workers' new patient-export job opened a transaction and then uploaded each CSV part to "
              "S3 before committing; its sessions sat idle in transaction and held 190 tenant-db "
              "connections, leaving too few server connections for the booking pool.",
          "Following the November fix, the on-call raised the booking pool (70 to 110); that made it worse: "
          "PgBouncer could not open the extra server connections ('remaining connection slots are "
          "reserved') and staff-sso logins started failing too. Terminating the workers_rw sessions idle "
          "in transaction for more than 2 minutes freed the connections, and booking-api recovered. The "
          "export job was changed to upload outside the transaction, and workers_rw got a 60 s "
          "idle_in_transaction_session_timeout.",
          [(rb("pgbouncer-raise-pool-size") + " (booking pool 70 to 110)", "failed", "pgbouncer-raise-pool-size"),
           ("terminated idle-in-transaction sessions of workers_rw older than 2 minutes with "
            "pg_terminate_backend by hand", "succeeded", None)],
          "mei.l"))

inc("SRCH2", "2024-12-17T19:45", "SEARCHBLOCK", None, "booking-api", "high",
    "AvailabilityIndexWriteErrors booking-api",
    "booking-api availability index updates failing",
    None,
    ['sum(rate(search_index_write_errors_total{service="booking-api",index="availability-v3"}[5m])) > 0.5 (value: 47.9)'],
    labels=alert("AvailabilityIndexWriteErrors", "high", "scheduling"), start=4,
    out=O(50, "es-data-02 crossed the flood-stage disk watermark after a reindex left the old "
              "availability-v2 shards behind; indices with shards on it went read_only_allow_delete and "
              "booking-api's index updates failed with FORBIDDEN/12.",
          "The leftover availability-v2 index was deleted, and search-es-clear-write-block grew "
          "es-data-02's volume and cleared the block. Updates caught up in 8 minutes.",
          [(rb("search-es-clear-write-block") + " on es-data-02", "succeeded", "search-es-clear-write-block")],
          "tomas.v", "search-es-clear-write-block"))

inc("QOOM2", "2024-12-20T12:55", "QUEUEOOM", None, "reminder-dispatcher", "critical",
    "reminder-dispatcher can't queue the morning batch, Redis OOM",
    "Engagement on-call. The 07:30 ET reminder batch stopped at 11% with 'OOM command not allowed'. "
    "reminder-dispatcher 2024.12.4 went out 20 minutes before; it only changes email template copy, but "
    "it's the most recent change. job-queue used_memory is 11.9 GB of 12 GB.",
    ["enqueue-failed", "redis-oom", "reminders-missing"],
    ["Sidekiq::Client push failed: OOM command not allowed when used memory > 'maxmemory'.",
     "job-queue INFO memory: used_memory_human:11.94G maxmemory_human:12.00G maxmemory_policy:noeviction"],
    dep=deploy("reminder-dispatcher", "2024.12.4", 22),
    labels={"source": "oncall", "team": "engagement", "region": "us-east-2"}, start=25,
    out=O(60, "The retry set held 1.3M StripeWebhookJob retries after Stripe replayed a day of events to "
              "billing-service; job-queue reached maxmemory with noeviction. The reminder-dispatcher "
              "release was unrelated.",
          "Taking reminder-dispatcher back to 2024.12.3 with helm-rollback-release changed nothing: the "
          "memory was held by the retry set. jobqueue-prune-dead-retry exported the sets and pruned the "
          "webhook retries, freeing 7 GB; the reminder batch resumed at 13:49 and finished by 14:20.",
          [(rb("helm-rollback-release") + " for reminder-dispatcher", "failed", "helm-rollback-release"),
           (rb("jobqueue-prune-dead-retry") + " for StripeWebhookJob", "succeeded", "jobqueue-prune-dead-retry")],
          "kofi.m", "jobqueue-prune-dead-retry"))

inc("SAML2", "2024-12-27T15:00", "SAMLCERT", None, "clinic-console", "high",
    "Pellham Women's Health: staff SSO fails with a signature error (Okta)",
    "Support escalation. Pellham's admin confirms they moved their Okta app to a new signing "
    "certificate over the holidays. All Pellham staff get 'Unexpected error when authenticating with "
    "identity provider' right after Okta. Other clinics log in fine.",
    ["login-failed", "saml-signature-invalid"],
    ["WARN [org.keycloak.events] type=IDENTITY_PROVIDER_LOGIN_ERROR, identity_provider=pellham-okta, error=invalid_signature",
     "clinic-console: /auth/callback 302 -> /login?error=idp_error tenant=pellham-wh"],
    labels={"source": "zendesk", "tenant": "pellham-wh", "team": "identity"}, start=50,
    out=O(45, "Pellham's Okta app switched to a new SAML signing certificate; Keycloak's pellham-okta "
              "identity provider still trusted only the old one.",
          "sso-refresh-idp-metadata read Pellham's Okta metadata URL again and updated the signing "
          "certificate; logins worked at once.",
          [(rb("sso-refresh-idp-metadata") + " for pellham-okta", "succeeded", "sso-refresh-idp-metadata")],
          "amir.s", "sso-refresh-idp-metadata"))

# ---- 2025-01 -------------------------------------------------------------
inc("SMS3", "2025-01-06T13:04", "SMS", "ratelimit", "reminder-dispatcher", "high",
    "Monday reminder batch: thousands of texts failing at send, provider answering 429",
    "Engagement on-call. First Monday after the holidays, and the 08:00 ET batch is 3.4x normal (62k "
    "texts). reminder-dispatcher fans out at about 450 req/s and the SMS provider's API answers HTTP 429 "
    "(error 20429) for roughly 40% of sends; after 3 quick retries the reminder is marked failed. "
    "Messages that do get accepted are delivered normally, no carrier errors on the receipts. All "
    "tenants affected.",
    ["sms-undelivered", "rate-limited"],
    ["SmsClient ERROR POST /2010-04-01/Accounts/AC***/Messages.json -> 429 {\"code\": 20429, \"message\": \"Too Many Requests\"}",
     "reminder-dispatcher WARN reminder 7731029 marked failed after 3 attempts (last: 429)"],
    labels={"source": "oncall", "team": "engagement", "region": "us-east-2"}, start=8,
    out=O(100, "The post-holiday batch exceeded the provider account's API request rate; reminder-dispatcher "
               "sent without a rate limit and gave up after three immediate retries. Delivery of accepted "
               "messages was fine.",
          "Going by the autumn cases, the responder first moved the five largest tenants to their "
          "registered sender pools; nothing changed, because the account-level API limit was rejecting "
          "the sends, not the carriers. sms-throttle-send-rate capped the send rate at 120/s and queued "
          "the 24k failed reminders again; they were delivered by 14:40.",
          [(rb("sms-switch-sender-pool") + " for the five largest tenants", "failed", "sms-switch-sender-pool"),
           (rb("sms-throttle-send-rate") + " (SMS_MAX_RPS 450 to 120)", "succeeded", "sms-throttle-send-rate")],
          "kofi.m", "sms-throttle-send-rate"))

inc("VPN2", "2025-01-08T04:50", "VPN", None, "ehr-bridge", "high",
    "Dunmore Health inbound HL7 silent since 04:12, tunnel looks half up",
    "Interop on-call, paged by the inbound-rate alert. Dunmore's SIU and ADT channels get no new "
    "connections. vpn-02 shows the IKE SA up and the CHILD_SA installed with bytes out but none in. "
    "Dunmore's firewall did a scheduled rekey at 04:11.",
    ["hl7-feed-stalled", "tunnel-down"],
    ["charon: 14[IKE] CHILD_SA rekey collision: peer's CHILD_SA won, deleting ours",
     "charon: 05[NET] no matching CHILD_SA found for inbound ESP packet, SPI 0x9f2e11c4"],
    labels={"source": "oncall", "team": "interop", "hospital": "dunmore", "region": "us-east-2"}, start=38,
    out=O(35, "A rekey collision with Dunmore's firewall left vpn-02 with a CHILD_SA the peer no longer "
              "used; inbound ESP packets matched no SA and were dropped.",
          "ehr-strongswan-restart-tunnel re-established the Dunmore tunnel on vpn-02; both channels "
          "reconnected and the backlog drained in 6 minutes.",
          [(rb("ehr-strongswan-restart-tunnel") + " for dunmore on vpn-02", "succeeded", "ehr-strongswan-restart-tunnel")],
          "jo.baptiste", "ehr-strongswan-restart-tunnel"))

inc("HL7P2", "2025-01-10T19:30", "HL7POISON", None, "clinic-console", "medium",
    "Referrals from Calloway Memorial not appearing in the clinic console",
    "Amberlane Pediatrics front desk says hospital referrals from Calloway haven't shown up since "
    "lunch. The console itself is fine. In ehr-bridge the Calloway connection is up and messages are "
    "ACKed, but channel calloway-ref-in has a growing queue with the same head message retried.",
    ["hl7-feed-stalled", "queue-backlog"],
    ["ERROR [calloway-ref-in] Destination 'create-referral' failed: ca.uhn.hl7v2.HL7Exception: "
     "Message segment PID-5 contains an unescaped field separator",
     "WARN  [calloway-ref-in] queue size=1177 head=id 9911820 attempt=204"],
    labels={"source": "zendesk", "tenant": "amberlane-peds", "team": "interop"}, start=200,
    out=O(60, "A referral from Calloway had an unescaped '|' in the patient name (PID-5); the ordered "
              "destination queue retried that message forever and everything after it waited.",
          "ehr-skip-poison-message parked message 9911820 in the error store; 1,177 queued referrals were "
          "processed in 5 minutes. Calloway's interface team fixed the name at the source.",
          [(rb("ehr-skip-poison-message") + " on calloway-ref-in", "succeeded", "ehr-skip-poison-message")],
          "jo.baptiste", "ehr-skip-poison-message"))

inc("POOL3", "2025-01-14T14:20", "POOL", "idle-txn", "tenant-db", "critical",
    "PostgresIdleInTransactionHigh tenant-db",
    "Many sessions idle in transaction on tenant-db (role workers_rw)",
    ["idle-in-transaction", "connection-pool-exhausted"],
    ['sum(pg_stat_activity_count{datname="tenants",state="idle in transaction",usename="workers_rw"}) > 40 (value: 173)'],
    labels=alert("PostgresIdleInTransactionHigh", "critical", "platform", {"usename": "workers_rw"}), start=3,
    out=O(30, "An insurance-card OCR backfill in job-workers held transactions open while calling the OCR "
              "API; 173 sessions idle in transaction took the connections the booking pool needed.",
          "The 60 s timeout on workers_rw had been reset by a Terraform change on 01-09. "
          "tenantdb-terminate-idle-txn ended the sessions idle for more than 2 minutes and set the "
          "timeout again; booking-api latency was normal within a minute.",
          [(rb("tenantdb-terminate-idle-txn") + " for role workers_rw", "succeeded", "tenantdb-terminate-idle-txn")],
          "mei.l", "tenantdb-terminate-idle-txn"))

inc("ELIG2", "2025-01-17T16:45", "ELIG", None, "clinic-console", "high",
    "Insurance verification spinning in the clinic console, bookings blocked",
    "Halewood Family Practice and Redfern both report that the eligibility panel spins and new bookings "
    "won't save. eligibility-check p99 is 30 s for all payers; Vantor's status page shows 'degraded "
    "performance - real-time transactions'.",
    ["timeouts", "latency-spike"],
    ["eligibility-check ERROR Vantor 270 timeout after 30000ms payer=UHC",
     "clinic-console WARN POST /api/appointments 504 upstream booking-api"],
    labels={"source": "zendesk", "team": "revenue"}, start=30,
    out=O(40, "Vantor Exchange degraded real-time eligibility for all payers for about two hours; bookings "
              "waited 30 s on every check.",
          "eligibility-deferred-mode let bookings through with 'verification pending'; 2,400 queued checks "
          "completed after Vantor recovered.",
          [(rb("eligibility-deferred-mode"), "succeeded", "eligibility-deferred-mode")],
          "priya.n", "eligibility-deferred-mode"))

inc("IFRAME", "2025-01-21T20:15", "ONEOFF-IFRAME", None, "video-visits", "high",
    "Silverbirch Behavioral Health: patients can't turn on camera or microphone in video visits since yesterday",
    "Ticket #52231 (CS, long thread). Silverbirch embeds our video visit page inside their own patient "
    "website. Since Monday, patients joining from the Silverbirch site see 'Camera blocked' and the "
    "browser never asks for permission. Providers joining from the console are fine, and patients who "
    "open the visit link from the text message directly are fine too. This is not the 'Connecting...' "
    "problem from November: the call connects, the patient just has no camera or microphone. "
    "Silverbirch's web agency published a redesign of their site on Sunday night. Chrome and Edge are "
    "affected, Safari shows a different error.",
    ["media-permission-denied"],
    ["NotAllowedError: Permission denied (getUserMedia, visits.corvata.health embedded in www.silverbirchbh.org)",
     "[Violation] Permissions policy violation: camera is not allowed in this document."],
    labels={"source": "zendesk", "tenant": "silverbirch-bh", "team": "virtual-care"}, start=600,
    out=O(240, "Silverbirch's redesigned website embedded our visit page in an iframe without "
               "allow=\"camera; microphone\"; browsers denied media access to the embedded page.",
          "Nothing on our side had changed, and TURN was healthy. We switched Silverbirch's visit links to "
          "open in a new tab (a tenant setting) the same evening, and their agency put the iframe's allow "
          "attribute back two days later.",
          [("switched tenant silverbirch-bh to open visits in a new tab instead of the embed", "succeeded", None)],
          "rhea.k"))

inc("LOCK2", "2025-01-24T15:35", "LOCKS", None, "booking-api", "high",
    "Appointment check-in and reschedule failing with lock timeouts",
    "Scheduling on-call. 9% of PATCH /appointments fail with 'canceling statement due to lock timeout' "
    "since 15:10. PgBouncer is fine (cl_waiting 0). pg_locks shows a long transaction from billing_rw "
    "that started at 15:04.",
    ["lock-contention", "timeouts"],
    ["ERROR: canceling statement due to lock timeout CONTEXT: while locking tuple (40221,3) in relation \"appointments\"",
     "pg_stat_activity pid=120771 usename=billing_rw application_name=claims-batch state=active xact_start=2025-01-24 15:04:11"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=25,
    out=O(40, "The revenue team started the claims batch by hand at 15:04 to resubmit rejected claims; the "
              "resubmission path still locked whole days of appointments in one transaction.",
          "billing-pause-claims-batch suspended the CronJob and stopped the running job; the locks were "
          "gone within a second and check-ins worked. The resubmission ran at 01:00.",
          [(rb("billing-pause-claims-batch"), "succeeded", "billing-pause-claims-batch")],
          "lena.h", "billing-pause-claims-batch"))

inc("IDX2", "2025-01-28T21:05", "INDEXLOCK", None, "patient-portal", "high",
    "Portal shows open slots for Amberlane providers that are already booked",
    "Patient complaints via Amberlane: they pick a slot and get 'This time is no longer available'. "
    "Three Amberlane providers' availability in search is from yesterday. Index writes work for "
    "everyone else; cluster green, disk 58%. job-workers was deployed 48 minutes ago (rolling restart).",
    ["stale-results"],
    ["patient-portal WARN booking-api 409 SLOT_UNAVAILABLE tenant=amberlane-peds",
     "SidekiqUniqueJobs - Skipping AvailabilityReindexJob(provider=amberlane-ngata) digest uniquejobs:ac09f3e2 lock already held"],
    dep=deploy("job-workers", "2025.01.6", 48),
    labels={"source": "zendesk", "tenant": "amberlane-peds", "team": "scheduling"}, start=90,
    out=O(55, "The rolling restart of job-workers killed workers after the 25 s shutdown timeout while "
              "reindex jobs were running; their until_executed locks stayed in job-queue and later reindex "
              "jobs for those providers were dropped as duplicates.",
          "jobs-release-orphaned-locks removed 22 orphaned locks and reindexed amberlane-peds; search was "
          "correct 6 minutes later. The job-workers release itself was fine and stayed.",
          [(rb("jobs-release-orphaned-locks") + " for tenant amberlane-peds", "succeeded", "jobs-release-orphaned-locks")],
          "tomas.v", "jobs-release-orphaned-locks"))

# ---- 2025-02 -------------------------------------------------------------
inc("NAT2", "2025-02-03T13:20", "NAT", None, "ehr-bridge", "high",
    "FhirOutboundErrors ehr-bridge",
    "outbound FHIR requests to hospital endpoints failing",
    ["egress-timeouts"],
    ['sum(rate(fhir_client_requests_total{service="ehr-bridge",outcome="connect_timeout"}[5m])) > 0.2 (value: 3.7)'],
    labels=alert("FhirOutboundErrors", "high", "interop"), start=4,
    out=O(50, "nat-egress-b's conntrack table filled: job-workers' webhook delivery job retried a clinic's "
              "dead endpoint in a tight loop, opening about 1,800 connections per second, and the NAT "
              "instance dropped new flows to every destination, including ehr-bridge's FHIR calls.",
          "nat-egress-restart-top-talker found job-workers pods as the top source (71% of entries), "
          "restarted them and deleted their entries; FHIR calls recovered in 2 minutes. The webhook retry "
          "got exponential backoff the next day.",
          [(rb("nat-egress-restart-top-talker") + " on nat-egress-b", "succeeded", "nat-egress-restart-top-talker")],
          "sam.o", "nat-egress-restart-top-talker"))

inc("REL3", "2025-02-06T17:30", "REL", None, "booking-api", "high",
    "booking-api slow since 2025.02.1, request threads all waiting",
    "Scheduling on-call. Since the 2025.02.1 release 35 minutes ago p99 climbed from 300 ms to 4 s. "
    "Pods are not OOM, the DB is quiet (CPU 22%, no waiting clients in PgBouncer). Thread dumps show "
    "request threads blocked on the coroutine event loop of the new reminder preview call.",
    ["latency-spike", "deploy-regression"],
    ["\"http-nio-8080-exec-187\" WAITING on kotlinx.coroutines.BlockingEventLoop (runBlocking in AppointmentPreviewService.render)",
     "booking-api p99 latency 4.1s (SLO 800ms)"],
    dep=deploy("booking-api", "2025.02.1", 35),
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=30,
    out=O(25, "booking-api 2025.02.1 called runBlocking inside request threads for the new reminder "
              "preview; under load every Tomcat thread waited on a small dispatcher.",
          "helm-rollback-release took booking-api back to 2025.01.9; p99 was back to 310 ms in five "
          "minutes. The preview was made non-blocking in 2025.02.2.",
          [(rb("helm-rollback-release") + " for booking-api", "succeeded", "helm-rollback-release")],
          "lena.h", "helm-rollback-release"))

inc("SRCH3", "2025-02-10T20:00", "SEARCHBLOCK", None, "patient-portal", "high",
    "Patients double-booked at two clinics, portal availability frozen",
    "Two tenants (Northgate Urgent Care, Tamsin Orthopedics) had patients booked into slots that were "
    "already held, through the portal, in the last hour. Portal search results haven't changed since "
    "about 19:15 for anyone. booking-api's indexer says the index is read-only.",
    ["double-booking", "stale-results", "index-write-blocked"],
    ["booking-api ERROR AvailabilityIndexer: [availability-v3] ClusterBlockException: blocked by: "
     "[FORBIDDEN/12/index read-only / allow delete (api)]"],
    labels={"source": "zendesk", "team": "scheduling"}, start=45,
    out=O(65, "es-data-01 and es-data-03 went past 95% disk after shards relocated to them while es-data-06 "
              "was being replaced; their indices went read_only_allow_delete.",
          "search-es-clear-write-block grew both volumes and cleared the block; holds and availability "
          "updates resumed and the two double bookings were sorted out with the clinics.",
          [(rb("search-es-clear-write-block") + " on es-data-01 and es-data-03", "succeeded",
            "search-es-clear-write-block")],
          "tomas.v", "search-es-clear-write-block"))

inc("QOOM3", "2025-02-13T12:40", "QUEUEOOM", None, "job-queue", "critical",
    "RedisMemoryNearMax job-queue",
    "job-queue used memory above 97% of maxmemory",
    None,
    ['redis_memory_used_bytes{service="job-queue"} / redis_memory_max_bytes{service="job-queue"} > 0.97 (value: 0.993)'],
    labels=alert("RedisMemoryNearMax", "critical", "platform"), start=3,
    out=O(35, "The dead set grew to 2.1M FaxDeliveryJob entries while the fax provider rejected one "
              "tenant's malformed referral fax numbers for two weeks; job-queue reached maxmemory.",
          "jobqueue-prune-dead-retry exported and pruned the fax job class; memory fell from 99% to 41% "
          "and enqueues never failed for more than a few minutes. The tenant's numbers were fixed.",
          [(rb("jobqueue-prune-dead-retry") + " for FaxDeliveryJob", "succeeded", "jobqueue-prune-dead-retry")],
          "sam.o", "jobqueue-prune-dead-retry"))

inc("SMS4", "2025-02-17T13:02", "SMS", "ratelimit", "reminder-dispatcher", "high",
    "SmsProviderThrottling reminder-dispatcher",
    "SMS provider returning 429 for more than 10% of sends",
    ["rate-limited", "sms-undelivered"],
    ['sum(rate(sms_provider_http_responses_total{code="429"}[5m])) / sum(rate(sms_provider_http_responses_total[5m])) > 0.1 (value: 0.37)'],
    labels=alert("SmsProviderThrottling", "high", "engagement", {"code": "429"}), start=2,
    out=O(45, "Presidents' Day rescheduling pushed the 08:00 ET batch to 48k texts, and the send rate was "
              "back at 450/s because a Helm upgrade had overwritten the January setting; the provider "
              "answered 429 for 37% of sends.",
          "sms-throttle-send-rate set SMS_MAX_RPS to 120 again and queued the rejected reminders; all were "
          "delivered within the hour. The limit was moved into the Helm values.",
          [(rb("sms-throttle-send-rate") + " (SMS_MAX_RPS 450 to 120)", "succeeded", "sms-throttle-send-rate")],
          "kofi.m", "sms-throttle-send-rate"))

inc("TURN2", "2025-02-21T18:25", "TURN", None, "patient-portal", "high",
    "Video visit from the portal: 'Unable to connect to your provider'",
    "Patients joining from the portal on cellular or hospital Wi-Fi can't connect; those on home Wi-Fi "
    "mostly can. Providers join the room and wait. The video SDK in the portal reports ICE failed with "
    "no relay candidates. The monthly secret rotation ran this morning.",
    ["video-connect-failed", "ice-failed"],
    ["patient-portal ERROR video: ICE failed (relayCandidates=0) room=vv-20250221-8812",
     "coturn: 401 Unauthorized: check_stun_auth: Cannot find credentials of user <1740164700:pt-19aa>"],
    labels={"source": "zendesk", "team": "virtual-care"}, start=70,
    out=O(50, "coturn kept the previous TURN shared secret after the monthly rotation; relay allocations "
              "with new credentials got 401.",
          "video-resync-turn-secret forced the sync and restarted coturn; relayed visits worked again.",
          [(rb("video-resync-turn-secret"), "succeeded", "video-resync-turn-secret")],
          "rhea.k", "video-resync-turn-secret"))

inc("SAML3", "2025-02-25T14:10", "SAMLCERT", None, "staff-sso", "high",
    "SSO login failures for Tamsin Orthopedics, Keycloak signature errors",
    "Identity on-call. Keycloak logs invalid_signature for tamsin-adfs since 13:50; Tamsin's AD FS "
    "automatic certificate rollover made a new token-signing certificate primary. About 60 staff "
    "affected, no other tenant.",
    ["login-failed", "saml-signature-invalid"],
    ["type=IDENTITY_PROVIDER_LOGIN_ERROR, identity_provider=tamsin-adfs, error=invalid_signature",
     "AD FS event 385: new primary token-signing certificate active (relayed by Tamsin IT)"],
    labels={"source": "oncall", "team": "identity", "tenant": "tamsin-ortho"}, start=20,
    out=O(30, "Tamsin's AD FS rolled over its token-signing certificate automatically; Keycloak's "
              "tamsin-adfs identity provider did not have the new certificate.",
          "sso-refresh-idp-metadata imported Tamsin's AD FS federation metadata again; staff logins "
          "worked immediately.",
          [(rb("sso-refresh-idp-metadata") + " for tamsin-adfs", "succeeded", "sso-refresh-idp-metadata")],
          "amir.s", "sso-refresh-idp-metadata"))

# ---- 2025-03 -------------------------------------------------------------
inc("POOL4", "2025-03-03T13:05", "POOL", "surge", "booking-api", "critical",
    "Monday open: booking-api slow, PgBouncer clients waiting, DB has headroom",
    "Scheduling on-call. The spring flu and booster campaign emails went out Sunday; Monday 08:00 ET "
    "traffic is 2.8x. Booking pool sv_active 70/70, cl_waiting about 300. tenant-db CPU 41%, sessions "
    "are 'active', none idle in transaction (checked: 0 older than 10 s). No recent deploys.",
    ["connection-pool-exhausted", "latency-spike", "timeouts"],
    ["HikariPool-1 - Connection is not available, request timed out after 30000ms.",
     "pgbouncer SHOW POOLS: booking booking_rw cl_active=70 cl_waiting=297 sv_active=70 sv_idle=0 maxwait=22"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=7,
    out=O(30, "A campaign-driven Monday surge (2.8x) needed more booking-pool server connections than 70; "
              "tenant-db had CPU and connection headroom and no idle transactions.",
          "pgbouncer-raise-pool-size took the booking pool from 70 to 100; waiting clients cleared in a "
          "minute. tenant-db peaked at 58% CPU.",
          [(rb("pgbouncer-raise-pool-size") + " (booking pool 70 to 100)", "succeeded", "pgbouncer-raise-pool-size")],
          "mei.l", "pgbouncer-raise-pool-size"))

inc("TZ", "2025-03-10T14:30", "ONEOFF-TZ", None, "reminder-dispatcher", "medium",
    "Arizona clinics: reminders show the wrong appointment time since the weekend",
    "CS relay, three tenants in Phoenix and Tucson (Redfern's Scottsdale office, Linden & Moss Tempe, "
    "Saguaro Sports Medicine). Since Sunday patients get 'your appointment is tomorrow at 11:00' for "
    "10:00 appointments. Delivery itself is fine and the times in the console are right. Tenants "
    "outside Arizona are fine.",
    ["reminders-wrong-time"],
    ["reminder 8812231 rendered start=11:00 (tz=America/Denver) appointment.start=2025-03-11T17:00:00Z location.tz_source=import"],
    labels={"source": "zendesk", "team": "engagement"}, start=300,
    out=O(300, "Locations created by the bulk onboarding import in January stored their time zone as "
               "America/Denver ('Mountain Time') instead of America/Phoenix; Arizona keeps standard time, "
               "so after the 9 March clock change reminders showed times one hour late.",
          "Corrected the time zone of 23 Arizona locations by hand and rendered the next 48 hours of "
          "reminders again; patients with wrong texts got a correction. The import tool now maps Mountain "
          "Time by state.",
          [("fixed the time zone of 23 locations by hand and rendered pending reminders again", "succeeded", None)],
          "dana.r"))

inc("EML2", "2025-03-12T15:15", "EMAIL", None, "clinic-console", "medium",
    "Tamsin Orthopedics: confirmation emails bouncing for Microsoft 365 and Gmail recipients",
    "The clinic console shows Tamsin's confirmation emails as bounced since yesterday. Tamsin set their "
    "DMARC policy to p=reject last week after a security audit. They send from tamsinortho.com through "
    "us. Texts are fine.",
    ["email-bounce"],
    ["sendgrid event=bounce reason=\"550 5.7.509 Access denied, sending domain tamsinortho.com does not pass DMARC verification\"",
     "Authentication-Results: dmarc=fail (p=reject) header.from=tamsinortho.com"],
    labels={"source": "zendesk", "tenant": "tamsin-ortho", "team": "engagement"}, start=120,
    out=O(90, "Tamsin's DKIM records for our email provider had never been added; their mail passed only "
              "on SPF without alignment, and when they moved DMARC to p=reject every message failed.",
          "email-fallback-shared-domain moved Tamsin's mail to the shared Corvata domain and sent the bounced "
          "confirmations again. Tamsin's IT added the DKIM CNAMEs a week later.",
          [(rb("email-fallback-shared-domain") + " for tenant tamsin-ortho", "succeeded", "email-fallback-shared-domain")],
          "kofi.m", "email-fallback-shared-domain"))

inc("HL7P3", "2025-03-14T11:40", "HL7POISON", None, "ehr-bridge", "high",
    "HL7ChannelQueueGrowing ehr-bridge",
    "channel staurelia-adt-in queue above 500 and growing",
    ["queue-backlog", "hl7-feed-stalled"],
    ['max(ehr_channel_queued{channel="staurelia-adt-in"}) > 500 and deriv(ehr_channel_queued{channel="staurelia-adt-in"}[10m]) > 0 (value: 1834)'],
    labels=alert("HL7ChannelQueueGrowing", "high", "interop", {"channel": "staurelia-adt-in"}), start=3,
    out=O(25, "An ADT^A08 from St. Aurelia carried a non-UTF-8 byte in the guarantor address; the transformer "
              "threw on every attempt and the ordered queue stalled behind it.",
          "ehr-skip-poison-message parked the head message; 1,834 messages drained in 6 minutes. The tunnel "
          "was never involved.",
          [(rb("ehr-skip-poison-message") + " on staurelia-adt-in", "succeeded", "ehr-skip-poison-message")],
          "jo.baptiste", "ehr-skip-poison-message"))

inc("SRCH4", "2025-03-19T19:10", "SEARCHBLOCK", None, "slot-search", "high",
    "OpenSearchWritesBlocked slot-search",
    "OpenSearch domain slot-search has index writes blocked",
    None,
    ['max(aws_es_cluster_index_writes_blocked_maximum{domain_name="slot-search"}) > 0 (value: 1)'],
    labels=alert("OpenSearchWritesBlocked", "high", "platform"), start=4,
    out=O(80, "FreeStorageSpace on the OpenSearch domain fell below the service's threshold after the "
              "availability-v4 reindex doubled the index size; OpenSearch Service blocked index writes "
              "(FORBIDDEN/8/index write).",
          "The old procedure no longer applies since the move to OpenSearch Service: "
          "search-es-clear-write-block found no host to reach over SSH, and clearing the block through the "
          "API was undone by the service while storage stayed low. opensearch-expand-storage grew the data "
          "volumes from 500 to 800 GiB and the block lifted when the blue/green change finished, 38 "
          "minutes later. The old availability-v3 index was deleted afterwards.",
          [(rb("search-es-clear-write-block"), "failed", "search-es-clear-write-block"),
           (rb("opensearch-expand-storage") + " (500 to 800 GiB)", "succeeded", "opensearch-expand-storage")],
          "tomas.v", "opensearch-expand-storage"))

inc("SMS5", "2025-03-24T13:10", "SMS", "carrier", "reminder-dispatcher", "high",
    "Northgate Urgent Care reminder texts undelivered: carrier errors, no 429s",
    "Engagement on-call. Northgate (onboarded last week, 11 locations) shows 52% undelivered reminders "
    "with receipts 30007 and 30034. The provider API accepts every send (201, no 429s at all, send rate "
    "normal). Other tenants are fine.",
    ["sms-undelivered", "carrier-filtering"],
    ["status_callback MessageStatus=undelivered ErrorCode=30034 tenant=northgate-uc",
     "SmsClient POST Messages.json -> 201 queued (tenant=northgate-uc)"],
    labels={"source": "oncall", "team": "engagement", "tenant": "northgate-uc"}, start=30,
    out=O(110, "Northgate was onboarded on the shared long-code pool before its 10DLC campaign was attached; "
               "carriers filtered its texts.",
          "Remembering the January and February cases, the responder lowered the send rate first; the "
          "receipts did not change, because the provider accepted every message and the carriers dropped "
          "them. sms-switch-sender-pool moved Northgate to its registered messaging service and delivery "
          "went to 99%.",
          [(rb("sms-throttle-send-rate") + " (SMS_MAX_RPS 120 to 60)", "failed", "sms-throttle-send-rate"),
           (rb("sms-switch-sender-pool") + " for tenant northgate-uc", "succeeded", "sms-switch-sender-pool")],
          "kofi.m", "sms-switch-sender-pool"))

inc("ELIG3", "2025-03-27T15:25", "ELIG", None, "billing-service", "medium",
    "EligibilityPrecheckFailures billing-service",
    "billing-service claim pre-checks failing on eligibility-check timeouts",
    None,
    ['sum(rate(billing_claim_precheck_total{result="eligibility_timeout"}[10m])) > 0.3 (value: 5.2)'],
    labels=alert("EligibilityPrecheckFailures", "medium", "revenue"), start=5,
    out=O(45, "Vantor Exchange degraded real-time eligibility for Blue Cross plans; claim pre-checks and "
              "bookings waited 30 s per request.",
          "eligibility-deferred-mode queued the checks; pre-checks and bookings went through and the queue "
          "emptied after Vantor recovered at 17:10.",
          [(rb("eligibility-deferred-mode"), "succeeded", "eligibility-deferred-mode")],
          "priya.n", "eligibility-deferred-mode"))

# ---- 2025-04 -------------------------------------------------------------
inc("REL4", "2025-04-01T16:40", "REL", None, "clinic-console", "high",
    "Can't create recurring appointments from the console: server error",
    "Front desks at Linden & Moss and Osterley: creating a weekly physio or derm series fails with "
    "'Server error'; single appointments work. clinic-console gets a 500 from booking-api POST "
    "/v2/appointment-series. booking-api 2025.03.5 went out at 16:09.",
    ["5xx", "deploy-regression"],
    ["booking-api ERROR java.lang.NullPointerException: Cannot invoke \"java.time.ZoneId.getRules()\" because "
     "\"location.zone\" is null at RecurrenceExpander.expand(RecurrenceExpander.kt:88)"],
    dep=deploy("booking-api", "2025.03.5", 31),
    labels={"source": "zendesk", "team": "scheduling"}, start=25,
    out=O(30, "booking-api 2025.03.5 read the time zone from a new location field that is null for "
              "locations created before 2023; recurring series for those locations threw a "
              "NullPointerException.",
          "helm-rollback-release took booking-api back to 2025.03.4; series creation worked again. The "
          "field was backfilled before the next release.",
          [(rb("helm-rollback-release") + " for booking-api", "succeeded", "helm-rollback-release")],
          "lena.h", "helm-rollback-release"))

inc("NAT3", "2025-04-04T13:15", "NAT", None, "reminder-dispatcher", "high",
    "reminders: SMS and email sends timing out at connect, both providers",
    "Engagement on-call. Since 13:02 about a quarter of sends to both the SMS provider and the email "
    "provider fail with connect timeouts, no HTTP status at all. Not a 429 and not carrier receipts: the "
    "TCP connection never opens. ehr-bridge is reporting FHIR timeouts too, so probably not us. Only "
    "pods in us-east-2b?",
    ["egress-timeouts", "reminders-missing"],
    ["SmsClient ERROR connect timed out after 10000ms (api.twilio.com:443)",
     "MailClient ERROR dial tcp: i/o timeout (api.sendgrid.com:443)"],
    labels={"source": "oncall", "team": "engagement", "region": "us-east-2"}, start=13,
    out=O(60, "billing-service's Stripe client went into a reconnect loop after TLS handshake errors on a "
              "stale connection pool, opening about 2,400 connections per second through nat-egress-b; its "
              "conntrack table filled and new flows of every service in us-east-2b were dropped.",
          "nat-egress-restart-top-talker showed billing-service pods as the top source; restarting "
          "billing-service and deleting its entries brought the table down to 12%. Sends recovered and the "
          "failed reminders were retried by the normal retry.",
          [(rb("nat-egress-restart-top-talker") + " on nat-egress-b", "succeeded", "nat-egress-restart-top-talker")],
          "sam.o", "nat-egress-restart-top-talker"))

inc("IDX3", "2025-04-09T22:00", "INDEXLOCK", None, "job-workers", "high",
    "ReindexJobsSkipped job-workers",
    "AvailabilityReindexJob skipped as duplicate above normal rate",
    ["stale-results"],
    ['sum(rate(unique_jobs_skipped_total{worker="AvailabilityReindexJob"}[15m])) > 2 (value: 14.6)'],
    labels=alert("ReindexJobsSkipped", "high", "platform"), start=5,
    out=O(40, "job-workers pods evicted during the node group rotation left orphaned until_executed locks "
              "for 31 providers; their reindex jobs were skipped as duplicates and search went stale.",
          "jobs-release-orphaned-locks reaped the locks and reindexed the three affected tenants.",
          [(rb("jobs-release-orphaned-locks"), "succeeded", "jobs-release-orphaned-locks")],
          "tomas.v", "jobs-release-orphaned-locks"))

inc("LOCK3", "2025-04-14T15:50", "LOCKS", None, "tenant-db", "high",
    "tenant-db lock waits on appointments; booking writes erroring",
    "Platform on-call, paged by the lock-wait alert. 30+ backends wait on row locks in appointments; "
    "the blocking pid is claims-batch (billing_rw), transaction open for 22 minutes. PgBouncer pools "
    "have room and there is no pile-up of sessions idle in transaction. The revenue team started a "
    "catch-up run for March claims this morning.",
    ["lock-contention", "timeouts"],
    ["pg_blocking_pids() = {204411} for 34 backends; 204411 application_name=claims-batch query=SELECT ... "
     "FROM appointments WHERE service_date BETWEEN $1 AND $2 FOR UPDATE",
     "booking-api ERROR: canceling statement due to lock timeout"],
    labels={"source": "oncall", "team": "platform", "region": "us-east-2"}, start=15,
    out=O(35, "The March catch-up claims run locked a month of appointments FOR UPDATE in one transaction; "
              "booking writes to those rows timed out.",
          "billing-pause-claims-batch stopped the run and suspended the CronJob; lock waits disappeared at "
          "once. The catch-up ran overnight.",
          [(rb("billing-pause-claims-batch"), "succeeded", "billing-pause-claims-batch")],
          "mei.l", "billing-pause-claims-batch"))

inc("QOOM4", "2025-04-17T13:30", "QUEUEOOM", None, "clinic-console", "high",
    "Console: 'Could not send confirmation' on every booking",
    "Clinic staff at several tenants get a yellow banner 'Booking saved but confirmation could not be "
    "sent' since about 13:10. Appointments are saved. Looks like jobs can't be queued.",
    ["enqueue-failed", "reminders-missing"],
    ["booking-api WARN ConfirmationPublisher: redis.clients.jedis.exceptions.JedisDataException: OOM command "
     "not allowed when used memory > 'maxmemory'."],
    labels={"source": "zendesk", "team": "scheduling"}, start=25,
    out=O(50, "A tenant's bulk patient import (300k rows) failed validation and its jobs went to the retry "
              "set with whole rows as arguments; job-queue reached maxmemory.",
          "jobqueue-prune-dead-retry exported and pruned the import retries; confirmations were queued "
          "again and the import was rerun with a fixed file.",
          [(rb("jobqueue-prune-dead-retry") + " for PatientImportRowJob", "succeeded", "jobqueue-prune-dead-retry")],
          "sam.o", "jobqueue-prune-dead-retry"))

inc("POOL5", "2025-04-22T14:40", "POOL", "idle-txn", "staff-sso", "high",
    "Staff SSO logins timing out for all clinics",
    "Identity on-call. The Keycloak login flow hangs at the broker step about 40% of the time since "
    "14:15, and Keycloak can't get DB connections. tenant-db is close to max_connections with 160 "
    "sessions idle in transaction from job-workers (role workers_archive). Traffic is normal. Not a SAML "
    "certificate issue: every IdP and password logins alike.",
    ["login-failed", "timeouts", "idle-in-transaction"],
    ["org.keycloak.services.error.KeycloakErrorHandler Uncaught server error: "
     "org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection",
     "FATAL: remaining connection slots are reserved for non-replication superuser connections",
     "pg_stat_activity: 161 idle in transaction (workers_archive), oldest 00:11:05"],
    labels={"source": "oncall", "team": "identity", "region": "us-east-2"}, start=25,
    out=O(35, "The new appointment-archive job in job-workers ran as workers_archive, a role without the 60 s "
              "idle_in_transaction_session_timeout, and held transactions open while writing Parquet "
              "files to S3; tenant-db ran out of connection slots for Keycloak and booking-api.",
          "tenantdb-terminate-idle-txn ended the idle sessions of workers_archive and set the timeout on "
          "that role; logins recovered in a minute.",
          [(rb("tenantdb-terminate-idle-txn") + " for role workers_archive", "succeeded", "tenantdb-terminate-idle-txn")],
          "amir.s", "tenantdb-terminate-idle-txn"))

inc("VPN3", "2025-04-25T05:10", "VPN", None, "ehr-bridge", "high",
    "Calloway Memorial ADT feed stopped after their firewall rekey",
    "Interop on-call. Calloway's ADT and referral channels have had nothing inbound since 04:31. "
    "swanctl on vpn-01 shows IKE up and the child SA with 0 bytes in. Calloway's NOC confirms a rekey at "
    "04:30 and says their side is fine.",
    ["hl7-feed-stalled", "tunnel-down"],
    ["charon: 07[IKE] received DELETE for ESP CHILD_SA with SPI 7b00e1a2, but no such SA",
     "ehr-bridge: calloway-adt-in listener idle 39m (baseline 25 msg/min)"],
    labels={"source": "oncall", "team": "interop", "hospital": "calloway", "region": "us-east-2"}, start=35,
    out=O(30, "The 04:30 rekey by Calloway's firewall left a stale CHILD_SA on vpn-01.",
          "ehr-strongswan-restart-tunnel re-established the Calloway tunnel; both channels reconnected.",
          [(rb("ehr-strongswan-restart-tunnel") + " for calloway on vpn-01", "succeeded", "ehr-strongswan-restart-tunnel")],
          "jo.baptiste", "ehr-strongswan-restart-tunnel"))

inc("SAML4", "2025-04-30T13:20", "SAMLCERT", None, "clinic-console", "medium",
    "northgate cant log in",
    "Northgate front desk (chat): 'all of us get an error after the microsoft login screen'.",
    ["login-failed"],
    ["clinic-console /auth/callback -> /login?error=idp_error tenant=northgate-uc"],
    labels={"source": "intercom", "tenant": "northgate-uc", "team": "identity"}, start=15,
    out=O(60, "Northgate's Entra ID rolled over its SAML signing certificate; for their older app "
              "registration the metadata URL we held still served the previous certificate for a while.",
          "sso-refresh-idp-metadata ran but picked up the old certificate from the stale metadata URL "
          "(partial). The new certificate from the metadata XML that Northgate's IT sent was imported by "
          "hand and logins worked; the tenant's metadata URL was updated to the new app registration.",
          [(rb("sso-refresh-idp-metadata") + " for northgate-entra", "partial", "sso-refresh-idp-metadata"),
           ("imported the signing certificate from Northgate's metadata XML into Keycloak by hand", "succeeded", None)],
          "amir.s"))

# ---- 2025-05 -------------------------------------------------------------
inc("SRCH5", "2025-05-06T18:30", "SEARCHBLOCK", None, "booking-api", "high",
    "booking-api can't update the availability index, OpenSearch says write blocked",
    "Scheduling on-call. All index updates from booking-api fail since 18:02 with FORBIDDEN/8 index "
    "write; searches serve stale slots. The domain's FreeStorageSpace is 18 GiB per node (about 3.6%). "
    "Not the orphaned-lock problem: this is every tenant, and the error comes from the cluster.",
    ["index-write-blocked", "stale-results", "disk-full"],
    ["OpenSearchStatusException[OpenSearch exception [type=cluster_block_exception, reason=index "
     "[availability-v4] blocked by: [FORBIDDEN/8/index write (api)];]]"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=25,
    out=O(60, "Audit documents in the availability index grew faster than planned and FreeStorageSpace on "
              "the OpenSearch domain fell under the threshold; the service blocked writes.",
          "opensearch-expand-storage grew the volumes from 800 to 1,200 GiB; writes resumed when the change "
          "completed. An ISM policy now deletes audit documents after 30 days.",
          [(rb("opensearch-expand-storage") + " (800 to 1200 GiB)", "succeeded", "opensearch-expand-storage")],
          "tomas.v", "opensearch-expand-storage"))

inc("TURN3", "2025-05-09T19:50", "TURN", None, "video-visits", "high",
    "TurnAllocationFailures video-visits",
    "TURN allocate requests failing with 401",
    None,
    ['sum(rate(coturn_allocations_failed_total{reason="401"}[5m])) / sum(rate(coturn_allocations_total[5m])) > 0.2 (value: 0.96)'],
    labels=alert("TurnAllocationFailures", "high", "virtual-care"), start=4,
    out=O(45, "The monthly TURN secret rotation ran but coturn kept the previous secret; one coturn pod was "
              "stuck terminating and kept its old configuration.",
          "video-resync-turn-secret synced the secret and restarted coturn, but coturn-2 stayed stuck "
          "(partial); deleting that pod by hand let it start with the new secret and allocations "
          "succeeded.",
          [(rb("video-resync-turn-secret"), "partial", "video-resync-turn-secret"),
           ("deleted pod coturn-2, stuck terminating, so it started with the new secret", "succeeded", None)],
          "rhea.k", "video-resync-turn-secret"))

inc("EML3", "2025-05-16T14:05", "EMAIL", None, "reminder-dispatcher", "medium",
    "Email bounce rate jumped for one tenant (Halewood), DMARC failures",
    "Engagement dashboard: Halewood Family Practice email bounces at 71% since 05-14. Every bounce reason "
    "mentions DMARC or DKIM. Halewood handed their DNS to a new managed service provider last week.",
    ["email-bounce", "reminders-missing"],
    ["sendgrid event=bounce reason=\"550-5.7.26 This mail has been blocked because the sender is unauthenticated. DKIM = did not pass\"",
     "dig CNAME s1._domainkey.halewoodfp.com -> NXDOMAIN"],
    labels={"source": "oncall", "tenant": "halewood-fp", "team": "engagement"}, start=60,
    out=O(70, "Halewood's new DNS provider did not carry over the DKIM CNAME records for our email "
              "provider; mail from halewoodfp.com failed DMARC.",
          "email-fallback-shared-domain moved Halewood to the shared domain and resent bounced mail; the "
          "clinic's provider restored the records four days later.",
          [(rb("email-fallback-shared-domain") + " for tenant halewood-fp", "succeeded", "email-fallback-shared-domain")],
          "kofi.m", "email-fallback-shared-domain"))

inc("HL7P4", "2025-05-20T17:00", "HL7POISON", None, "job-workers", "medium",
    "HL7 appointment sync jobs idle, St. Aurelia backlog in ehr-bridge",
    "Platform noticed that EhrAppointmentSyncJob in job-workers has had nothing for St. Aurelia for 2 "
    "hours while their clinics keep booking. In ehr-bridge, channel staurelia-siu-in is connected and "
    "ACKing, with a queue of 3,900 and the same head message failing.",
    ["queue-backlog", "hl7-feed-stalled"],
    ["ERROR [staurelia-siu-in] Destination 'write-appointments' failed: ca.uhn.hl7v2.model.DataTypeException: "
     "AIL-3 value longer than 250 characters",
     "WARN  [staurelia-siu-in] head message id=14418820 attempt=288"],
    labels={"source": "oncall", "team": "platform", "hospital": "st-aurelia"}, start=110,
    out=O(40, "An SIU from St. Aurelia had a location description longer than AIL-3 allows; the destination "
              "failed on it every time and the ordered queue stopped.",
          "ehr-skip-poison-message parked the message and the 3,900 queued messages reached job-workers in "
          "9 minutes.",
          [(rb("ehr-skip-poison-message") + " on staurelia-siu-in", "succeeded", "ehr-skip-poison-message")],
          "jo.baptiste", "ehr-skip-poison-message"))

inc("REL5", "2025-05-23T15:15", "REL", None, "booking-api", "critical",
    "KubePodCrashLooping booking-api",
    "booking-api pods restarting (OOMKilled)",
    None,
    ['increase(kube_pod_container_status_restarts_total{namespace="scheduling",container="booking-api"}[15m]) > 3 (value: 9)'],
    dep=deploy("booking-api", "2025.05.2", 18),
    labels=alert("KubePodCrashLooping", "critical", "scheduling"), start=3,
    out=O(20, "booking-api 2025.05.2 cached each provider's 90-day availability on the heap on first request "
              "without a bound; pods ran out of memory within minutes.",
          "helm-rollback-release took booking-api back to 2025.05.1 and restarts stopped. The cache got a "
          "size limit in 2025.05.3.",
          [(rb("helm-rollback-release") + " for booking-api", "succeeded", "helm-rollback-release")],
          "lena.h", "helm-rollback-release"))

inc("POOL6", "2025-05-27T12:14", "POOL", "surge", "clinic-console", "high",
    "Console sluggish at opening, every screen loading 10-20s",
    "CS and scheduling on-call. Tuesday after Memorial Day, 08:00 ET: the clinic console is slow for "
    "everyone. booking-api behind it waits on PgBouncer: booking pool 100/100 active, cl_waiting 350. "
    "tenant-db CPU 47%, all sessions active, nothing idle in transaction. Traffic is 3.1x a normal "
    "Tuesday.",
    ["latency-spike", "connection-pool-exhausted"],
    ["clinic-console WARN upstream booking-api GET /v2/schedule 504 after 15000ms",
     "pgbouncer: booking/booking_rw cl_waiting=351 sv_active=100 maxwait=24"],
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=12,
    out=O(30, "Post-holiday demand (3.1x) needed more booking-pool connections than 100, with tenant-db "
              "healthy and no idle transactions.",
          "pgbouncer-raise-pool-size (revision 2, idle check first: none) took the pool from 100 to 140; "
          "the console was fast again in two minutes.",
          [(rb("pgbouncer-raise-pool-size") + " (booking pool 100 to 140)", "succeeded", "pgbouncer-raise-pool-size")],
          "mei.l", "pgbouncer-raise-pool-size"))

# ---- 2025-06 -------------------------------------------------------------
inc("ALLOW", "2025-06-10T15:30", "ONEOFF-ALLOWLIST", None, "ehr-bridge", "high",
    "FHIR calls to Dunmore Health failing about half the time, other hospitals fine",
    "Interop on-call. Since about 13:00 roughly 50% of FHIR requests to Dunmore's endpoint fail with a "
    "connection reset during the TLS handshake. Calls to the other 11 hospitals are fine. nat-egress "
    "conntrack is at 22% with no drops. This isn't the VPN: FHIR goes over the internet, and both new "
    "AWS VPN tunnels to Dunmore are UP. Failures only come from pods in us-east-2b.",
    ["connection-reset", "error-rate"],
    ["ehr-bridge ERROR FhirClient GET https://fhir.dunmorehealth.org/api/FHIR/R4/Appointment -> "
     "javax.net.ssl.SSLException: Connection reset",
     "fhir errors by source zone: us-east-2a 0.0%, us-east-2b 49.8%"],
    labels={"source": "oncall", "team": "interop", "hospital": "dunmore", "region": "us-east-2"}, start=150,
    out=O(360, "Dunmore replaced its perimeter firewall over the weekend and the new allowlist held only one "
               "of our two egress addresses (nat-egress-a's); connections leaving through nat-egress-b were "
               "reset.",
          "Nothing on our side was full or down. We routed Dunmore's address range through nat-egress-a by "
          "hand for the afternoon; Dunmore's network team added the nat-egress-b address back at 21:40 and "
          "the temporary route was removed the next morning.",
          [("routed Dunmore's prefix through nat-egress-a by hand and asked Dunmore to restore the allowlist",
            "succeeded", None)],
          "jo.baptiste"))

inc("VPN4", "2025-06-13T04:40", "VPN", None, "ehr-bridge", "high",
    "St. Aurelia HL7 feed down: AWS VPN tunnel 1 DOWN, tunnel 2 UP without routes",
    "Interop on-call. First rekey trouble since the hospital VPNs moved to AWS. St. Aurelia's inbound "
    "channels have been idle since 03:58. Tunnel 1 of their VPN connection is DOWN (IKE negotiation "
    "failing after their rekey); tunnel 2 is UP but BGP isn't advertising their prefix. The hospital's "
    "NOC sees their side UP.",
    ["hl7-feed-stalled", "tunnel-down"],
    ["aws ec2 describe-vpn-connections: VgwTelemetry[0] Status=DOWN StatusMessage=\"IPSEC IS DOWN\" "
     "LastStatusChange=2025-06-13T03:58:40Z",
     "ehr-bridge: staurelia-adt-in listener idle 42m"],
    labels={"source": "oncall", "team": "interop", "hospital": "st-aurelia", "region": "us-east-2"}, start=40,
    out=O(55, "After St. Aurelia's firewall rekeyed, the AWS-side endpoint of tunnel 1 stayed in a failed IKE "
              "state, and the standby tunnel carried no BGP route for the hospital's prefix.",
          "The on-call first reached for the strongSwan procedure; ehr-strongswan-restart-tunnel targets "
          "vpn-01 and vpn-02, which were shut down on 06-07, and could not reach any host. "
          "ehr-awsvpn-replace-tunnel replaced the tunnel 1 endpoint; it came up in 6 minutes, BGP "
          "advertised the prefix and MLLP reconnected.",
          [(rb("ehr-strongswan-restart-tunnel") + " for staurelia", "failed", "ehr-strongswan-restart-tunnel"),
           (rb("ehr-awsvpn-replace-tunnel") + " for St. Aurelia tunnel 1", "succeeded", "ehr-awsvpn-replace-tunnel")],
          "jo.baptiste", "ehr-awsvpn-replace-tunnel"))

inc("ELIG4", "2025-06-18T16:10", "ELIG", None, "eligibility-check", "medium",
    "eligibility checks spinning forever",
    "Clinics say insurance checks hang. eligibility-check to Vantor: 30 s timeouts, all payers.",
    ["timeouts"],
    ["Vantor 270 timeout after 30000ms payer=CIGNA"],
    labels={"source": "oncall", "team": "revenue"}, start=20,
    out=O(35, "Vantor Exchange had a real-time outage across payers for about 90 minutes.",
          "eligibility-deferred-mode kept bookings moving; checks were completed from the queue after "
          "Vantor recovered.",
          [(rb("eligibility-deferred-mode"), "succeeded", "eligibility-deferred-mode")],
          "priya.n", "eligibility-deferred-mode"))

inc("SAML5", "2025-06-23T14:00", "SAMLCERT", None, "staff-sso", "high",
    "Amberlane Pediatrics staff SSO broken after their Okta admin 'rotated certs': signature validation errors",
    "Identity on-call, escalated by CS. Amberlane's IT rotated their Okta SAML signing certificate at "
    "13:30 (planned; they emailed an old contact of ours). Since then all 84 Amberlane staff land on our "
    "error page after Okta. Keycloak logs invalid_signature for amberlane-okta only; SSO for other "
    "tenants and password logins are fine. Their metadata URL is the same as before. This is not the "
    "database connection problem from April: logins fail immediately, there are no timeouts, and "
    "Keycloak's DB pool is healthy.",
    ["login-failed", "saml-signature-invalid"],
    ["type=IDENTITY_PROVIDER_LOGIN_ERROR, realmId=clinics, identity_provider=amberlane-okta, error=invalid_signature",
     "SAMLEndpoint: Validation of signature of SAML response failed (signing certificate not trusted)"],
    labels={"source": "zendesk", "tenant": "amberlane-peds", "team": "identity"}, start=25,
    out=O(25, "Amberlane's Okta app moved to a new SAML signing certificate; Keycloak's amberlane-okta "
              "identity provider still trusted only the old one.",
          "sso-refresh-idp-metadata imported the metadata again from the unchanged URL and the new "
          "certificate was trusted; logins worked right away.",
          [(rb("sso-refresh-idp-metadata") + " for amberlane-okta", "succeeded", "sso-refresh-idp-metadata")],
          "amir.s", "sso-refresh-idp-metadata"))

inc("LOCK4", "2025-06-27T16:20", "LOCKS", None, "billing-service", "medium",
    "Claims corrections run and the front desk fighting over appointment rows again",
    "Revenue on-call. We started the Q2 corrections run at 16:00 and now scheduling says check-ins fail "
    "with lock timeouts. pg_locks: claims-batch holds FOR UPDATE locks on about 40k appointments rows. "
    "The chunked locking from December only covers the nightly path, not corrections.",
    ["lock-contention", "timeouts"],
    ["booking-api ERROR: canceling statement due to lock timeout (relation appointments)",
     "claims-batch INFO corrections run started: 41,882 appointments in range 2025-04-01..2025-06-26"],
    labels={"source": "oncall", "team": "revenue", "region": "us-east-2"}, start=15,
    out=O(30, "The Q2 corrections path of the claims batch locked 41,882 appointments rows in one "
              "transaction during business hours.",
          "billing-pause-claims-batch stopped the run; check-ins recovered at once. The corrections path "
          "was chunked before it ran again at night.",
          [(rb("billing-pause-claims-batch"), "succeeded", "billing-pause-claims-batch")],
          "priya.n", "billing-pause-claims-batch"))

# ---- 2025-07 -------------------------------------------------------------
inc("NAT4", "2025-07-02T13:05", "NAT", None, "nat-egress", "critical",
    "NatConntrackTableFull nat-egress",
    "conntrack table on nat-egress-a over 95% of its limit",
    ["egress-timeouts", "packet-drops"],
    ['node_nf_conntrack_entries{instance="nat-egress-a"} / node_nf_conntrack_entries_limit{instance="nat-egress-a"} > 0.95 (value: 0.998)'],
    labels=alert("NatConntrackTableFull", "critical", "platform", {"instance": "nat-egress-a"}), start=3,
    out=O(45, "reminder-dispatcher pods retried the email provider's 421 deferrals with a fresh connection on "
              "every attempt and filled nat-egress-a's conntrack table; new flows of every service behind "
              "it were dropped.",
          "nat-egress-restart-top-talker found reminder-dispatcher as the top source, restarted it and "
          "deleted its entries; the table fell to 15% and partner calls recovered. The retry now reuses "
          "connections.",
          [(rb("nat-egress-restart-top-talker") + " on nat-egress-a", "succeeded", "nat-egress-restart-top-talker")],
          "sam.o", "nat-egress-restart-top-talker"))

inc("NAT4B", "2025-07-02T13:27", "NAT", None, "eligibility-check", "high",
    "EligibilityUpstreamConnectErrors eligibility-check",
    "connect errors to clearinghouse above threshold",
    None,
    ['sum(rate(eligibility_upstream_errors_total{kind="connect_timeout"}[5m])) > 0.5 (value: 8.1)'],
    labels=alert("EligibilityUpstreamConnectErrors", "high", "revenue"), start=4,
    out=None)  # closed as a duplicate of NAT4 without an outcome

inc("IDX4", "2025-07-08T20:40", "INDEXLOCK", None, "slot-search", "high",
    "Search results wrong for a handful of providers, everyone else fine",
    "Scheduling on-call. Five providers across Tamsin and Kestrel show availability from Sunday. The "
    "OpenSearch domain is healthy: writes OK, no block, storage at 44%. job-workers had a rolling deploy "
    "55 minutes ago.",
    ["stale-results"],
    ["SidekiqUniqueJobs - Skipping AvailabilityReindexJob(provider=tamsin-vale) digest uniquejobs:0b7e11d4 lock already held",
     "slot-search: last_indexed_at provider=tamsin-vale 2025-07-06T22:14:03Z"],
    dep=deploy("job-workers", "2025.07.1", 55),
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=30,
    out=O(45, "The job-workers rolling deploy killed reindex jobs mid-run after the shutdown timeout and left "
              "their until_executed locks behind; later reindex jobs for those providers were skipped.",
          "jobs-release-orphaned-locks reaped 9 orphaned locks and reindexed tamsin-ortho and "
          "kestrel-valley. The shutdown timeout was raised to 90 s.",
          [(rb("jobs-release-orphaned-locks"), "succeeded", "jobs-release-orphaned-locks")],
          "tomas.v", "jobs-release-orphaned-locks"))

inc("SMS6", "2025-07-14T13:08", "SMS", "carrier", "reminder-dispatcher", "high",
    "Saguaro Sports Medicine: texts show 'undelivered' in the console",
    "Zendesk #61877. Saguaro's message log shows most reminder texts undelivered since their account "
    "moved to the new 'Growth' plan on Friday. Carrier receipts say 30007; the API accepted every "
    "message, and there are no rate errors from the provider today.",
    ["sms-undelivered", "carrier-filtering"],
    ["status_callback MessageStatus=undelivered ErrorCode=30007 tenant=saguaro-sm"],
    labels={"source": "zendesk", "tenant": "saguaro-sm", "team": "engagement"}, start=200,
    out=O(60, "The plan change provisioned Saguaro's texts onto the shared long-code pool again, detaching its "
              "registered 10DLC campaign; carriers filtered them.",
          "sms-switch-sender-pool pointed Saguaro back at its registered messaging service; delivery went "
          "to 99% and the undelivered reminders were resent. The plan change flow was fixed.",
          [(rb("sms-switch-sender-pool") + " for tenant saguaro-sm", "succeeded", "sms-switch-sender-pool")],
          "kofi.m", "sms-switch-sender-pool"))

inc("TURN4", "2025-07-18T18:00", "TURN", None, "video-visits", "high",
    "Video visits failing for patients on mobile networks",
    "Virtual-care on-call. Connection failures jumped to 28% of visits at 17:20, all of them "
    "relay-dependent. coturn logs 401s for new credentials. The secret rotation was moved to the 18th "
    "this month.",
    ["video-connect-failed", "ice-failed"],
    ["coturn: 401 Unauthorized: check_stun_auth: Cannot find credentials of user <1752863400:pt-a01c>"],
    labels={"source": "oncall", "team": "virtual-care"}, start=40,
    out=O(35, "coturn was still running with the previous TURN shared secret after the rotation.",
          "video-resync-turn-secret synced and restarted coturn; relay allocations succeeded again. The "
          "rotation job now triggers the sync itself.",
          [(rb("video-resync-turn-secret"), "succeeded", "video-resync-turn-secret")],
          "rhea.k", "video-resync-turn-secret"))

inc("HL7P5", "2025-07-23T12:15", "HL7POISON", None, "ehr-bridge", "high",
    "HL7ChannelHeadRetrying ehr-bridge",
    "head message on channel dunmore-siu-in retried more than 50 times",
    None,
    ['max(ehr_channel_head_attempts{channel="dunmore-siu-in"}) > 50 (value: 137)'],
    labels=alert("HL7ChannelHeadRetrying", "high", "interop", {"channel": "dunmore-siu-in"}), start=3,
    out=O(30, "A Dunmore SIU^S14 referenced an appointment type code that the tenant mapping did not know; "
              "the destination failed on it every attempt and the queue stalled.",
          "ehr-skip-poison-message parked the message; the queue drained and the mapping was added.",
          [(rb("ehr-skip-poison-message") + " on dunmore-siu-in", "succeeded", "ehr-skip-poison-message")],
          "jo.baptiste", "ehr-skip-poison-message"))

# ---- 2025-08 -------------------------------------------------------------
inc("QOOM5", "2025-08-05T12:50", "QUEUEOOM", None, "booking-api", "critical",
    "Bookings save but confirmation and reminder jobs fail to queue; booking-api shipped 35 min ago",
    "Scheduling on-call. booking-api 2025.08.1 went out at 12:15. Since 12:38 every job push fails with a "
    "Redis OOM error, from reminder-dispatcher too. job-queue at 99.6% of maxmemory, dead set 1.7M.",
    ["enqueue-failed", "redis-oom"],
    ["redis.clients.jedis.exceptions.JedisDataException: OOM command not allowed when used memory > 'maxmemory'.",
     "job-queue: ZCARD dead = 1702218"],
    dep=deploy("booking-api", "2025.08.1", 35),
    labels={"source": "oncall", "team": "scheduling", "region": "us-east-2"}, start=12,
    out=O(40, "Calloway resent a year of ADT history; 1.7M EhrPatientUpsertJob jobs failed on a missing tenant "
              "mapping and filled the dead set until job-queue reached maxmemory. The booking-api release "
              "was unrelated.",
          "jobqueue-prune-dead-retry exported and pruned the upsert jobs; job pushes worked again and the "
          "booking-api release stayed. The mapping was added and the ADT history replayed overnight.",
          [(rb("jobqueue-prune-dead-retry") + " for EhrPatientUpsertJob", "succeeded", "jobqueue-prune-dead-retry")],
          "lena.h", "jobqueue-prune-dead-retry"))

inc("SRCH6", "2025-08-12T19:20", "SEARCHBLOCK", None, "patient-portal", "high",
    "Portal: new openings not showing up, cancelled slots never come back",
    "CS relay from several clinics: cancellations from this afternoon aren't bookable online. "
    "patient-portal search results haven't changed since about 18:50. booking-api logs say the index "
    "write is blocked (FORBIDDEN/8).",
    ["stale-results", "index-write-blocked"],
    ["booking-api ERROR AvailabilityIndexer: cluster_block_exception [FORBIDDEN/8/index write (api)] index=availability-v4"],
    labels={"source": "zendesk", "team": "scheduling"}, start=30,
    out=O(55, "A backfill of two years of appointment history into the availability index used up the "
              "OpenSearch domain's free storage; the service blocked index writes.",
          "opensearch-expand-storage grew the volumes from 1,200 to 1,600 GiB; writes resumed after the "
          "change and the backfill was moved to its own index.",
          [(rb("opensearch-expand-storage") + " (1200 to 1600 GiB)", "succeeded", "opensearch-expand-storage")],
          "tomas.v", "opensearch-expand-storage"))

inc("SRCH6B", "2025-08-12T19:31", "SEARCHBLOCK", None, "slot-search", "high",
    "OpenSearchWritesBlocked slot-search",
    "OpenSearch domain slot-search has index writes blocked",
    None,
    ['max(aws_es_cluster_index_writes_blocked_maximum{domain_name="slot-search"}) > 0 (value: 1)'],
    labels=alert("OpenSearchWritesBlocked", "high", "platform"), start=6,
    out=O(47, "Same event as {SRCH6}: the history backfill used up the domain's free storage and OpenSearch "
              "Service blocked writes.",
          "Re-page of {SRCH6}, tracked there; the block lifted when the storage expansion done for {SRCH6} "
          "completed.",
          [("no separate action; covered by opensearch-expand-storage run for {SRCH6}", "succeeded", None)],
          "tomas.v", "opensearch-expand-storage"))

inc("EML4", "2025-08-19T14:40", "EMAIL", None, "clinic-console", "medium",
    "patients say no confirmation emails??",
    "From the Corran Eye front desk via chat. No other details.",
    ["email-bounce"],
    ["sendgrid event=bounce reason=\"550 5.7.26 Unauthenticated email from corraneye.com is not accepted due to domain's DMARC policy\""],
    labels={"source": "intercom", "tenant": "corran-eye", "team": "engagement"}, start=90,
    out=O(80, "Corran Eye's website agency rebuilt their DNS zone and dropped the DKIM CNAMEs for our email "
              "provider; mail from corraneye.com failed DMARC.",
          "email-fallback-shared-domain moved Corran Eye to the shared domain and resent the bounced "
          "confirmations; the agency restored the records the next day.",
          [(rb("email-fallback-shared-domain") + " for tenant corran-eye", "succeeded", "email-fallback-shared-domain")],
          "kofi.m", "email-fallback-shared-domain"))

inc("VPN5", "2025-08-28T05:25", "VPN", None, "clinic-console", "high",
    "Merriwether referrals missing this morning, interop says the tunnel is down",
    "Early-shift CS with the interop on-call. Merriwether's referral channel has been idle since 04:47; "
    "the AWS VPN console shows both Merriwether tunnels DOWN after their 04:45 maintenance-window rekey. "
    "The hospital's NOC is engaged.",
    ["hl7-feed-stalled", "tunnel-down"],
    ["VgwTelemetry Status=DOWN StatusMessage=\"IPSEC IS DOWN\" LastStatusChange=2025-08-28T04:46:12Z (tunnel 1 and 2)"],
    labels={"source": "zendesk", "team": "interop", "hospital": "merriwether"}, start=35,
    out=None)  # still open when the history ends

# --------------------------------------------------------------------------
# Catalog timeline (applies)
# --------------------------------------------------------------------------
INITIAL = ["helm-rollback-release", "pgbouncer-raise-pool-size", "search-es-clear-write-block",
           "sms-switch-sender-pool", "sms-throttle-send-rate", "email-fallback-shared-domain",
           "jobqueue-prune-dead-retry", "ehr-strongswan-restart-tunnel", "eligibility-deferred-mode",
           "video-resync-turn-secret", "nat-egress-restart-top-talker"]
LATER = [  # (at, runbook, spec override or None)
    ("2024-10-22T10:00", "sso-refresh-idp-metadata", None),
    ("2024-11-11T10:00", "ehr-skip-poison-message", None),
    ("2024-12-02T10:00", "billing-pause-claims-batch", None),
    ("2024-12-16T10:00", "jobs-release-orphaned-locks", None),
    ("2024-12-18T10:00", "tenantdb-terminate-idle-txn", None),
    ("2025-03-03T10:00", "opensearch-expand-storage", None),
    ("2025-03-11T10:10", "pgbouncer-raise-pool-size", POOL_V2),
    ("2025-06-02T10:00", "ehr-awsvpn-replace-tunnel", None),
]
MIGRATIONS = [
    ("2025-03-08T06:00", "slot-search-es-to-opensearch", {
        "targetService": "slot-search",
        "migrationDate": "2025-03-08",
        "oldArch": "Self-managed Elasticsearch 7.17 on EC2 (3 masters, 6 data nodes on LVM volumes, SSH access)",
        "newArch": "Amazon OpenSearch Service 2.13 domain on gp3 EBS, no node access; the service blocks "
                   "index writes itself when free storage runs low",
        "impactedRunbooks": ["search-es-clear-write-block"],
        "impactedFixKeywords": ["lvextend", "read_only_allow_delete", "ssh to es-data"],
        "confidenceDeduction": 30}),
    ("2025-06-07T06:00", "ehr-vpn-strongswan-to-aws-s2s", {
        "targetService": "ehr-bridge",
        "migrationDate": "2025-06-07",
        "oldArch": "strongSwan IPsec on two EC2 hosts (vpn-01, vpn-02), one static tunnel per hospital",
        "newArch": "AWS Site-to-Site VPN on a Transit Gateway, two tunnels per hospital with BGP; vpn-01 "
                   "and vpn-02 shut down",
        "impactedRunbooks": ["ehr-strongswan-restart-tunnel"],
        "impactedFixKeywords": ["swanctl", "strongswan", "vpn-01", "vpn-02"],
        "confidenceDeduction": 30}),
]
CONTRADICTIONS = [
    ("2024-12-18T10:05", "booking-pool-exhaustion", {
        "topic": "booking-api waiting on the PgBouncer booking pool",
        "memories": ["POOL1", "POOL2"],
        "claims": [
            {"memory": "POOL1", "claim": "raise default_pool_size of the booking pool; tenant-db has headroom"},
            {"memory": "POOL2", "claim": "raising the pool made it worse (tenant-db out of connection slots); "
                                         "terminate sessions idle in transaction and set a timeout on the role"}],
        "resolution": {"state": "open"}}),
    ("2025-01-09T10:00", "sms-reminder-delivery", {
        "topic": "reminder texts not reaching patients",
        "memories": ["SMS1", "SMS2", "SMS3"],
        "claims": [
            {"memory": "SMS2", "claim": "move the tenant to its registered 10DLC messaging service"},
            {"memory": "SMS3", "claim": "changing sender pools did nothing; cap the send rate and queue the "
                                        "rejected reminders again"}],
        "resolution": {"state": "open"}}),
    ("2025-03-11T10:00", "booking-pool-exhaustion", {
        "topic": "booking-api waiting on the PgBouncer booking pool",
        "memories": ["POOL1", "POOL2", "POOL3", "POOL4"],
        "claims": [
            {"memory": "POOL1", "claim": "raise default_pool_size of the booking pool; tenant-db has headroom"},
            {"memory": "POOL2", "claim": "raising the pool made it worse (tenant-db out of connection slots); "
                                         "terminate sessions idle in transaction and set a timeout on the role"},
            {"memory": "POOL3", "claim": "terminating idle-in-transaction sessions of workers_rw fixed it"},
            {"memory": "POOL4", "claim": "raising the pool fixed a campaign surge with no idle transactions"}],
        "resolution": {"state": "reconciled",
                       "note": "Both fixes hold, under different conditions. Check pg_stat_activity first. "
                               "If many sessions sit 'idle in transaction' for minutes (a job-workers role), "
                               "terminate them and set idle_in_transaction_session_timeout on that role; never "
                               "raise the pool then, because tenant-db runs out of connection slots (POOL2). "
                               "If sessions are active, waiting clients grow with real traffic (Monday open, "
                               "campaigns, holidays) and tenant-db CPU is below about 60%, raise the pool."}}),
    ("2025-03-28T10:00", "sms-reminder-delivery", {
        "topic": "reminder texts not reaching patients",
        "memories": ["SMS1", "SMS2", "SMS3", "SMS4", "SMS5"],
        "claims": [
            {"memory": "SMS2", "claim": "move the tenant to its registered 10DLC messaging service"},
            {"memory": "SMS3", "claim": "changing sender pools did nothing; cap the send rate and queue the "
                                        "rejected reminders again"},
            {"memory": "SMS5", "claim": "capping the send rate did nothing; the sender pool change fixed it"}],
        "resolution": {"state": "reconciled",
                       "note": "Both fixes hold, under different conditions. Undelivered receipts with carrier "
                               "errors 30007 or 30034 while the API accepts every send (201) mean carrier "
                               "filtering of a tenant on the shared pool: move that tenant to its registered "
                               "messaging service; the send rate does not matter. HTTP 429 / error 20429 from "
                               "the provider's API during a large batch, with normal receipts for accepted "
                               "messages, means the account rate limit: cap SMS_MAX_RPS and queue the "
                               "rejected reminders again; sender pools do not matter."}}),
]


# --------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------
def build():
    incs = sorted(INCIDENTS, key=lambda i: i["at"])
    assert len({i["key"] for i in incs}) == len(incs)
    names = {}
    for n, i in enumerate(incs):
        names[i["key"]] = "hc-%04d" % (1001 + n)
        i["name"] = names[i["key"]]

    def sub(text):
        return re.sub(r"\{([A-Z0-9]+)\}", lambda m: names[m.group(1)], text)

    events = []  # (datetime, seq, kind, payload)
    seq = [0]

    def add(at, kind, payload):
        seq[0] += 1
        events.append((at, seq[0], kind, payload))

    start = T("2024-10-01T09:00")
    add(start, "apply", {"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
                         "data": {"topology": topology_yaml()}})
    for k, name in enumerate(INITIAL):
        add(start + timedelta(minutes=1 + k), "apply",
            {"apiVersion": API, "kind": "Runbook", "metadata": {"name": name}, "spec": RUNBOOKS[name]})
    for at, name, override in LATER:
        add(T(at), "apply", {"apiVersion": API, "kind": "Runbook", "metadata": {"name": name},
                             "spec": override or RUNBOOKS[name]})
    for at, name, spec in MIGRATIONS:
        add(T(at), "apply", {"apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": name},
                             "spec": spec})
    for at, name, spec in CONTRADICTIONS:
        s = json.loads(json.dumps(spec))
        s["memories"] = [names[m] for m in s["memories"]]
        for c in s["claims"]:
            c["memory"] = names[c["memory"]]
        if "note" in s["resolution"]:
            s["resolution"]["note"] = sub(s["resolution"]["note"])
        add(T(at), "apply", {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": name}, "spec": s})

    for i in incs:
        spec = {"service": i["svc"], "severity": i["sev"], "title": i["title"]}
        if i["desc"]:
            spec["description"] = i["desc"]
        if i["sym"]:
            spec["symptoms"] = i["sym"]
        if i["sigs"]:
            spec["errorSignatures"] = i["sigs"]
        if i["dep"]:
            spec["deployment"] = i["dep"]
        spec["startedAt"] = fmt(i["at"] - timedelta(minutes=i["start"]))
        spec["labels"] = i["labels"]
        add(i["at"], "incident", {"apiVersion": API, "kind": "Incident", "metadata": {"name": i["name"]},
                                  "spec": spec, "_inc": i})
        o = i["out"]
        if o:
            res = {"rootCause": sub(o["root"]), "summary": sub(o["summary"]), "runbook": o["runbook"],
                   "actions": [{"action": sub(a), "result": r} for a, r, _ in o["actions"]],
                   "confirmedBy": o["by"]}
            add(i["at"] + timedelta(minutes=o["delay"]), "outcome", {"incident": i["name"], "resolution": res,
                                                                    "_inc": i})

    events.sort(key=lambda e: (e[0], e[1]))

    # ---- derive the answer key, walking the timeline --------------------
    catalog, stale = set(), set()
    resolved = []  # (incident dict, failed runbooks)
    lines, rows = [], []
    for at, _, kind, p in events:
        if kind == "apply":
            obj = p
            if obj["kind"] == "Runbook":
                catalog.add(obj["metadata"]["name"])
            elif obj["kind"] == "ArchitectureMigration":
                stale.update(obj["spec"]["impactedRunbooks"])
            lines.append({"at": fmt(at), "type": "apply", "object": obj})
        elif kind == "incident":
            i = p.pop("_inc")
            fam, cond = i["fam"], i["cond"]
            prec = [r["name"] for r, _ in reversed(resolved) if r["fam"] == fam]
            right = None
            for cand in FIXES.get((fam, cond), []):
                if cand in catalog and cand not in stale:
                    right = cand
                    break
            unsafe = set(stale)
            for r, failed in resolved:
                if r["fam"] == fam and r["cond"] == cond:
                    unsafe.update(failed)
            unsafe.discard(right)
            truth = {"precedents": prec, "runbook": right, "novel": not prec,
                     "unsafeRunbooks": sorted(unsafe)}
            lines.append({"at": fmt(at), "type": "incident", "object": p, "truth": truth})
            rows.append((i, truth))
        else:
            i = p.pop("_inc")
            res = p["resolution"]
            failed = [rbk for _, r, rbk in i["out"]["actions"] if r == "failed" and rbk]
            for _, _, rbk in i["out"]["actions"]:
                assert rbk is None or rbk in catalog, (i["key"], rbk)
            assert res["runbook"] is None or res["runbook"] in catalog
            resolved.append((i, failed))
            lines.append({"at": fmt(at), "type": "outcome", "incident": p["incident"], "resolution": res})
    return lines, rows, names


def validate(lines, rows):
    rb_names = set(RUNBOOKS)
    banned = re.compile(r"rollback|roll back|revert|runbook", re.I)
    for ln in lines:
        if ln["type"] != "incident":
            continue
        spec = ln["object"]["spec"]
        text = json.dumps(spec)
        for n in rb_names:
            assert n not in text, (ln["object"]["metadata"]["name"], n)
        assert not banned.search(text), ln["object"]["metadata"]["name"]
        started = datetime.strptime(spec["startedAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        at = datetime.strptime(ln["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        assert started <= at
        if "alertname" in spec["labels"]:
            assert spec["title"] == "%s %s" % (spec["labels"]["alertname"], spec["service"]), spec["title"]
    ats = [ln["at"] for ln in lines]
    assert ats == sorted(ats)


def stats(lines, rows):
    inc = [ln for ln in lines if ln["type"] == "incident"]
    out = [ln for ln in lines if ln["type"] == "outcome"]
    kinds = {}
    for ln in lines:
        if ln["type"] == "apply":
            kinds[ln["object"]["kind"]] = kinds.get(ln["object"]["kind"], 0) + 1
    pages = [ln for ln in inc if "alertname" in ln["object"]["spec"]["labels"]]
    pages_nosym = [ln for ln in pages if not ln["object"]["spec"].get("symptoms")]
    novel = [ln for ln in inc if ln["truth"]["novel"]]
    novel_null = [ln for ln in novel if ln["truth"]["runbook"] is None]
    null_rb = [ln for ln in inc if ln["truth"]["runbook"] is None]
    with_unsafe = [ln for ln in inc if ln["truth"]["unsafeRunbooks"]]
    with_dep = [ln for ln in inc if "deployment" in ln["object"]["spec"]]
    failed_first = [ln for ln in out if any(a["result"] in ("failed", "partial") for a in ln["resolution"]["actions"])]
    by_rb = [ln for ln in out if ln["resolution"]["runbook"]]
    manual = [ln for ln in out if not ln["resolution"]["runbook"]]
    nosym_rb = [n for n, s in RUNBOOKS.items() if "symptoms" not in s]
    fams = {}
    for i, _t in rows:
        fams.setdefault(i["fam"], []).append(i["name"])
    print("events", len(lines), "applies", kinds)
    print("incidents", len(inc), "outcomes", len(out), "without outcome", len(inc) - len(out))
    print("novel", len(novel), "novel with runbook null", len(novel_null), "runbook null total", len(null_rb))
    print("alert pages", len(pages), "of which without symptoms", len(pages_nosym))
    print("with deployment", len(with_dep), "with unsafeRunbooks", len(with_unsafe))
    print("outcomes with failed/partial action first", len(failed_first), "fixed with a runbook", len(by_rb),
          "by hand", len(manual))
    print("runbooks", len(RUNBOOKS), "without symptoms", len(nosym_rb), nosym_rb)
    for f, ns in fams.items():
        print("  %-16s %d  %s" % (f, len(ns), " ".join(ns)))


def main():
    lines, rows, names = build()
    validate(lines, rows)
    with open(OUT, "w", encoding="utf-8", newline="\n") as fh:
        for ln in lines:
            fh.write(json.dumps(ln, ensure_ascii=False, separators=(", ", ": ")) + "\n")
    if "--stats" in sys.argv:
        stats(lines, rows)
        return
    for i, t in rows:
        print("%s %-8s %-16s %-9s %-19s novel=%-5s runbook=%-30s precedents=[%s] unsafe=[%s]" % (
            i["name"], i["at"].strftime("%Y-%m-%d"), i["fam"], i["cond"] or "-", i["svc"], t["novel"],
            t["runbook"], ",".join(t["precedents"]), ",".join(t["unsafeRunbooks"])))


if __name__ == "__main__":
    main()
