#!/usr/bin/env python3
"""Generate history.jsonl: a fictional incident history of Wagewell, a SaaS
payroll and HR platform. Standard library only, deterministic.

The history is held as structured data: topology, runbooks, migrations,
contradictions, failure families and incidents with their outcomes. Each
incident's `truth` is derived from its family and from the state of the world
at its time (which runbooks exist, which migrations happened, which outcomes
were recorded and which actions failed in them).

Run: python3 gen.py   (rewrites history.jsonl byte for byte)
"""
import json
import os
import re
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"


def T(s):
    """'2025-01-08 09:40' -> aware datetime (UTC)."""
    return datetime.strptime(s, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)


def iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------
# Platform and topology (an edge means "calls")
# ---------------------------------------------------------------------------

TOPOLOGY_V1 = [
    ("edge-proxy", ["employee-portal", "public-api", "sso-gateway"]),
    ("employee-portal", ["sso-gateway", "payroll-engine", "document-service", "time-ingest", "tenant-db"]),
    ("public-api", ["payroll-engine", "time-ingest", "document-service", "tenant-db"]),
    ("sso-gateway", ["tenant-db"]),
    ("payroll-engine", ["tax-rates", "tenant-db", "job-queue", "bank-export"]),
    ("tax-rates", ["tenant-db"]),
    ("time-ingest", ["tenant-db", "job-queue"]),
    ("document-service", ["job-queue", "tenant-db"]),
    ("bank-export", ["tenant-db", "job-queue", "notifications"]),
    ("notifications", ["job-queue", "tenant-db"]),
    ("cdc-pipeline", ["tenant-db"]),
    ("reporting-warehouse", ["cdc-pipeline"]),
    ("job-queue", []),
    ("tenant-db", []),
]
# After the document-service migration the Chromium render pods take their
# payload from the queue message and S3 and no longer read tenant-db.
TOPOLOGY_V2 = [(s, (["job-queue"] if s == "document-service" else d)) for s, d in TOPOLOGY_V1]

NAMESPACE = {
    "edge-proxy": "edge", "employee-portal": "portal", "public-api": "api",
    "sso-gateway": "identity", "payroll-engine": "payroll", "tax-rates": "tax",
    "time-ingest": "time", "document-service": "documents", "bank-export": "banking",
    "notifications": "notify", "cdc-pipeline": "data", "reporting-warehouse": "data",
    "job-queue": "messaging", "tenant-db": "databases",
}
TEAM = {
    "edge-proxy": "platform", "employee-portal": "portal", "public-api": "integrations",
    "sso-gateway": "identity", "payroll-engine": "payroll-core", "tax-rates": "payroll-core",
    "time-ingest": "time", "document-service": "docs-platform", "bank-export": "payments",
    "notifications": "messaging", "cdc-pipeline": "data-platform",
    "reporting-warehouse": "data-platform", "job-queue": "platform", "tenant-db": "platform",
}


def topology_cm(pairs):
    lines = []
    for svc, deps in pairs:
        lines.append("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)))
    return {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
        "data": {"topology": "\n".join(lines) + "\n"},
    }


SYMPTOMS = {
    "login-failure", "saml-error", "intermittent", "5xx", "error-rate", "latency-spike",
    "timeout", "queue-backlog", "batch-delay", "cpu-saturation", "db-lock-wait",
    "connection-pool-exhausted", "pdf-render-failure", "missing-data", "data-stale",
    "sms-failure", "rate-limited", "provider-error", "sftp-failure", "payment-delay",
    "deadline-risk", "calc-variance", "wrong-tax", "ingest-rejects",
}

# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------


def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


KUBECTL = "bitnami/kubectl:1.30"
AWS = "amazon/aws-cli:2.15.30"
PSQL = "postgres:15-alpine"
HELM = "alpine/helm:3.14.4"
TOOLBOX = "registry.wagewell.internal/ops/toolbox:2025.01"
NOTIFYCTL = "registry.wagewell.internal/messaging/notifyctl:3.4"
DOCCTL = "registry.wagewell.internal/docs/docctl:2.9"
TAXCTL = "registry.wagewell.internal/payroll/taxctl:1.12"
SSOCTL = "registry.wagewell.internal/identity/ssoctl:4.2"

BLOCKERS_SQL = (
    "SELECT a.pid, a.usename, a.backend_type, a.state, now() - a.xact_start AS xact_age, "
    "left(a.query, 80) FROM pg_stat_activity a WHERE a.pid IN (SELECT DISTINCT "
    "unnest(pg_blocking_pids(w.pid)) FROM pg_stat_activity w WHERE w.wait_event_type = 'Lock')")
TERMINATE_V1 = (
    "SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE a.pid IN (SELECT DISTINCT "
    "unnest(pg_blocking_pids(w.pid)) FROM pg_stat_activity w WHERE w.wait_event_type = 'Lock') "
    "AND now() - a.xact_start > interval '5 minutes'")
TERMINATE_V2 = (
    "SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a WHERE a.pid IN (SELECT DISTINCT "
    "unnest(pg_blocking_pids(w.pid)) FROM pg_stat_activity w WHERE w.wait_event_type = 'Lock') "
    "AND now() - a.xact_start > interval '5 minutes' AND a.backend_type = 'client backend' "
    "AND a.usename NOT IN ('cdc_replicator', 'payroll_batch')")

RUNBOOKS = {}


def runbook(name, title, services, symptoms, steps):
    for s in symptoms:
        assert s in SYMPTOMS, (name, s)
    RUNBOOKS.setdefault(name, [])
    RUNBOOKS[name].append({"apiVersion": API, "kind": "Runbook", "metadata": {"name": name},
                           "spec": {"title": title, "services": services,
                                    "symptoms": symptoms, "steps": steps}})


runbook("payroll-scale-calc-workers",
        "Add payroll calc workers when the pay-cycle batch is CPU-bound",
        ["payroll-engine"], ["batch-delay", "cpu-saturation", "queue-backlog"], [
            step("confirm-workers-cpu-bound", KUBECTL,
                 ["kubectl", "top", "pods", "-n", "payroll", "-l", "app=payroll-calc-worker"],
                 ["kubectl", "get", "hpa", "payroll-calc-worker", "-n", "payroll"], [],
                 "low", "read only", 10),
            step("raise-hpa-ceiling", KUBECTL,
                 ["kubectl", "patch", "hpa", "payroll-calc-worker", "-n", "payroll", "--type", "merge",
                  "-p", "{\"spec\":{\"maxReplicas\":$(MAX_REPLICAS)}}"],
                 ["kubectl", "patch", "hpa", "payroll-calc-worker", "-n", "payroll", "--type", "merge",
                  "-p", "{\"spec\":{\"maxReplicas\":$(MAX_REPLICAS)}}", "--dry-run=server"],
                 ["kubectl", "patch", "hpa", "payroll-calc-worker", "-n", "payroll", "--type", "merge",
                  "-p", "{\"spec\":{\"maxReplicas\":$(PREVIOUS_MAX_REPLICAS)}}"],
                 "medium", "payroll calc worker pool; more connections to tenant-db", 20),
            step("add-workers", KUBECTL,
                 ["kubectl", "scale", "deployment/payroll-calc-worker", "-n", "payroll",
                  "--replicas=$(REPLICAS)"],
                 ["kubectl", "scale", "deployment/payroll-calc-worker", "-n", "payroll",
                  "--replicas=$(REPLICAS)", "--dry-run=server"],
                 ["kubectl", "scale", "deployment/payroll-calc-worker", "-n", "payroll",
                  "--replicas=$(PREVIOUS_REPLICAS)"],
                 "medium", "payroll calc worker pool; more connections to tenant-db", 180),
        ])

runbook("notify-failover-sms-provider",
        "Move outbound SMS to the secondary provider while the primary has an outage",
        ["notifications"], ["sms-failure", "provider-error"], [
            step("check-provider-health", NOTIFYCTL,
                 ["notifyctl", "provider", "health", "--channel", "sms"],
                 ["notifyctl", "provider", "health", "--channel", "sms"], [],
                 "low", "read only", 10),
            step("make-pingwave-primary", NOTIFYCTL,
                 ["notifyctl", "route", "set", "--channel", "sms", "--primary", "pingwave",
                  "--secondary", "relaytext"],
                 ["notifyctl", "route", "set", "--channel", "sms", "--primary", "pingwave",
                  "--secondary", "relaytext", "--dry-run"],
                 ["notifyctl", "route", "set", "--channel", "sms", "--primary", "relaytext",
                  "--secondary", "pingwave"],
                 "medium", "all outbound SMS (Pingwave account limit 100 msg/s)", 30),
        ])

runbook("docrender-recycle-vm-workers",
        "Replace the wkhtmltopdf render VMs with an Auto Scaling instance refresh",
        ["document-service"], ["queue-backlog", "pdf-render-failure"], [
            step("show-render-pool", AWS,
                 ["aws", "autoscaling", "describe-auto-scaling-groups", "--auto-scaling-group-names",
                  "docrender-workers-$(REGION)"],
                 ["aws", "autoscaling", "describe-auto-scaling-groups", "--auto-scaling-group-names",
                  "docrender-workers-$(REGION)"], [],
                 "low", "read only", 10),
            step("start-instance-refresh", AWS,
                 ["aws", "autoscaling", "start-instance-refresh", "--auto-scaling-group-name",
                  "docrender-workers-$(REGION)", "--preferences",
                  "MinHealthyPercentage=50,InstanceWarmup=120"],
                 ["aws", "autoscaling", "describe-instance-refreshes", "--auto-scaling-group-name",
                  "docrender-workers-$(REGION)"],
                 ["aws", "autoscaling", "cancel-instance-refresh", "--auto-scaling-group-name",
                  "docrender-workers-$(REGION)"],
                 "medium", "payslip and tax-form rendering in one region; in-flight renders retried", 900),
        ])

runbook("app-rollback-helm-release",
        "Roll one service back to its previous Helm release",
        ["payroll-engine", "public-api", "employee-portal", "time-ingest", "bank-export", "notifications"],
        ["5xx", "error-rate", "latency-spike"], [
            step("show-release-history", HELM,
                 ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"],
                 ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"], [],
                 "low", "read only", 5),
            step("rollback-release", HELM,
                 ["helm", "rollback", "$(RELEASE)", "$(REVISION)", "-n", "$(NAMESPACE)", "--wait",
                  "--timeout", "10m"],
                 ["helm", "rollback", "$(RELEASE)", "$(REVISION)", "-n", "$(NAMESPACE)", "--dry-run"],
                 ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "-n", "$(NAMESPACE)",
                  "--wait"],
                 "medium", "one service", 300),
        ])

runbook("taxrates-force-reload-feed",
        "Import the current RateSource table version past the duplicate check and recompute previews",
        ["tax-rates", "payroll-engine"], ["calc-variance", "wrong-tax"], [
            step("diff-published-and-active", TAXCTL,
                 ["taxctl", "feed", "diff", "--jurisdiction", "$(JURISDICTION)"],
                 ["taxctl", "feed", "diff", "--jurisdiction", "$(JURISDICTION)"], [],
                 "low", "read only", 15),
            step("import-published-version", TAXCTL,
                 ["taxctl", "feed", "import", "--jurisdiction", "$(JURISDICTION)", "--version",
                  "$(FEED_VERSION)", "--ignore-etag"],
                 ["taxctl", "feed", "import", "--jurisdiction", "$(JURISDICTION)", "--version",
                  "$(FEED_VERSION)", "--ignore-etag", "--dry-run"],
                 ["taxctl", "feed", "activate", "--jurisdiction", "$(JURISDICTION)", "--version",
                  "$(PREVIOUS_VERSION)"],
                 "medium", "tax calculation for every employer in one jurisdiction", 120),
            step("recompute-previews", TAXCTL,
                 ["payrollctl", "preview", "recompute", "--cycle", "$(CYCLE_ID)", "--jurisdiction",
                  "$(JURISDICTION)"],
                 ["payrollctl", "preview", "recompute", "--cycle", "$(CYCLE_ID)", "--jurisdiction",
                  "$(JURISDICTION)", "--plan"], [],
                 "low", "previews of one pay cycle", 600),
        ])

runbook("sso-refresh-tenant-idp-metadata",
        "Re-import one tenant's IdP metadata after the IdP changed its signing certificate",
        ["sso-gateway", "employee-portal"], ["login-failure", "saml-error"], [
            step("diff-idp-certificates", SSOCTL,
                 ["ssoctl", "idp", "diff", "--tenant", "$(TENANT)"],
                 ["ssoctl", "idp", "diff", "--tenant", "$(TENANT)"], [],
                 "low", "read only", 10),
            step("import-idp-metadata", SSOCTL,
                 ["ssoctl", "idp", "import-metadata", "--tenant", "$(TENANT)", "--from-url"],
                 ["ssoctl", "idp", "import-metadata", "--tenant", "$(TENANT)", "--from-url", "--dry-run"],
                 ["ssoctl", "idp", "restore", "--tenant", "$(TENANT)", "--revision",
                  "$(PREVIOUS_REVISION)"],
                 "low", "SSO for one tenant", 30),
        ])

runbook("sso-drain-skewed-node",
        "Move sso-gateway off a node whose clock has drifted and bring its clock back",
        ["sso-gateway"], ["saml-error", "login-failure", "intermittent"], [
            step("measure-node-clock", KUBECTL,
                 ["kubectl", "debug", "node/$(NODE)", "--image", "busybox:1.36", "--", "chroot", "/host",
                  "chronyc", "tracking"],
                 ["kubectl", "get", "pods", "-n", "identity", "-o", "wide", "--field-selector",
                  "spec.nodeName=$(NODE)"], [],
                 "low", "read only", 20),
            step("cordon-and-drain", KUBECTL,
                 ["kubectl", "drain", "$(NODE)", "--ignore-daemonsets", "--delete-emptydir-data",
                  "--timeout", "5m"],
                 ["kubectl", "drain", "$(NODE)", "--ignore-daemonsets", "--delete-emptydir-data",
                  "--dry-run=server"],
                 ["kubectl", "uncordon", "$(NODE)"],
                 "medium", "pods on one node", 300),
            step("enable-chrony", AWS,
                 ["aws", "ssm", "send-command", "--instance-ids", "$(INSTANCE_ID)", "--document-name",
                  "AWS-RunShellScript", "--parameters",
                  "commands=[\"systemctl enable --now chronyd\",\"chronyc makestep\"]"],
                 ["aws", "ssm", "describe-instance-information", "--filters",
                  "Key=InstanceIds,Values=$(INSTANCE_ID)"], [],
                 "low", "one node", 60),
        ])

runbook("tenantdb-terminate-blocking-sessions",
        "End the database sessions that block payroll calc queries on tenant-db",
        ["tenant-db", "payroll-engine"], ["db-lock-wait", "batch-delay"], [
            step("list-blocking-sessions", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL],
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL], [],
                 "low", "read only", 10),
            step("terminate-blockers", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c", TERMINATE_V1],
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL], [],
                 "high", "open transactions of the blocking sessions are rolled back", 30),
        ])
# revision 2, applied after pr-0028: never end replication or batch sessions,
# and make tenant schema migrations give up instead of queueing behind reads.
runbook("tenantdb-terminate-blocking-sessions",
        "End the database sessions that block payroll calc queries on tenant-db",
        ["tenant-db", "payroll-engine"], ["db-lock-wait", "batch-delay"], [
            step("list-blocking-sessions", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL],
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL], [],
                 "low", "read only", 10),
            step("terminate-client-blockers", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c", TERMINATE_V2],
                 ["psql", "$(TENANT_DB_URL)", "-c", BLOCKERS_SQL], [],
                 "high", "open transactions of the blocking client sessions are rolled back; "
                 "replication and batch sessions are left alone", 30),
            step("bound-migration-lock-waits", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c", "ALTER ROLE tenant_migrator SET lock_timeout = '5s'"],
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "SELECT rolname, rolconfig FROM pg_roles WHERE rolname = 'tenant_migrator'"],
                 ["psql", "$(TENANT_DB_URL)", "-c", "ALTER ROLE tenant_migrator RESET lock_timeout"],
                 "low", "new sessions of the tenant_migrator role", 5),
        ])

runbook("notify-throttle-sms-rate",
        "Lower the SMS send rate below the provider account limit and spread payslip-ready texts",
        ["notifications"], ["sms-failure", "rate-limited"], [
            step("show-send-rate", NOTIFYCTL,
                 ["notifyctl", "ratelimit", "show", "--channel", "sms"],
                 ["notifyctl", "ratelimit", "show", "--channel", "sms"], [],
                 "low", "read only", 5),
            step("lower-send-rate", NOTIFYCTL,
                 ["notifyctl", "ratelimit", "set", "--channel", "sms", "--provider", "$(PROVIDER)",
                  "--per-second", "$(RATE)"],
                 ["notifyctl", "ratelimit", "set", "--channel", "sms", "--provider", "$(PROVIDER)",
                  "--per-second", "$(RATE)", "--dry-run"],
                 ["notifyctl", "ratelimit", "set", "--channel", "sms", "--provider", "$(PROVIDER)",
                  "--per-second", "$(PREVIOUS_RATE)"],
                 "low", "all outbound SMS", 15),
            step("spread-payslip-ready", NOTIFYCTL,
                 ["notifyctl", "queue", "defer", "--category", "payslip-ready", "--spread", "90m"],
                 ["notifyctl", "queue", "stats", "--category", "payslip-ready"],
                 ["notifyctl", "queue", "undefer", "--category", "payslip-ready"],
                 "low", "payslip-ready texts arrive up to 90 minutes later", 15),
        ])

runbook("cdc-add-tenant-schema-and-snapshot",
        "Add a new tenant schema to the warehouse publication and snapshot its tables",
        ["cdc-pipeline", "reporting-warehouse", "tenant-db"], ["data-stale", "missing-data"], [
            step("check-publication", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "SELECT count(*) FROM pg_publication_tables WHERE pubname = 'warehouse_pub' "
                  "AND schemaname = '$(TENANT_SCHEMA)'"],
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "SELECT count(*) FROM pg_publication_tables WHERE pubname = 'warehouse_pub' "
                  "AND schemaname = '$(TENANT_SCHEMA)'"], [],
                 "low", "read only", 5),
            step("add-schema-to-publication", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "ALTER PUBLICATION warehouse_pub ADD TABLES IN SCHEMA $(TENANT_SCHEMA)"],
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "SELECT table_name FROM information_schema.tables WHERE table_schema = '$(TENANT_SCHEMA)'"],
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "ALTER PUBLICATION warehouse_pub DROP TABLES IN SCHEMA $(TENANT_SCHEMA)"],
                 "low", "change events for one tenant", 10),
            step("signal-incremental-snapshot", PSQL,
                 ["psql", "$(TENANT_DB_URL)", "-c",
                  "INSERT INTO debezium.signal (id, type, data) VALUES (gen_random_uuid()::text, "
                  "'execute-snapshot', '{\"data-collections\": [\"$(TENANT_SCHEMA)\\\\..*\"], "
                  "\"type\": \"incremental\"}')"],
                 ["psql", "$(TENANT_DB_URL)", "-c", "SELECT * FROM debezium.signal ORDER BY id DESC LIMIT 5"],
                 [],
                 "low", "read load on one tenant schema while the snapshot runs", 1800),
        ])

runbook("docrender-pin-tenant-template",
        "Put one tenant's payslip template back to its last good version and park its render jobs",
        ["document-service"], ["pdf-render-failure", "queue-backlog", "timeout"], [
            step("find-slow-tenant", DOCCTL,
                 ["docctl", "jobs", "top", "--by", "render-seconds", "--since", "30m"],
                 ["docctl", "jobs", "top", "--by", "render-seconds", "--since", "30m"], [],
                 "low", "read only", 10),
            step("activate-last-good-template", DOCCTL,
                 ["docctl", "template", "activate", "--tenant", "$(TENANT)", "--version",
                  "$(LAST_GOOD_VERSION)"],
                 ["docctl", "template", "diff", "--tenant", "$(TENANT)", "--from", "$(CURRENT_VERSION)",
                  "--to", "$(LAST_GOOD_VERSION)"],
                 ["docctl", "template", "activate", "--tenant", "$(TENANT)", "--version",
                  "$(CURRENT_VERSION)"],
                 "low", "payslip layout of one tenant", 10),
            step("park-tenant-jobs", DOCCTL,
                 ["docctl", "jobs", "move", "--tenant", "$(TENANT)", "--from", "render-payslip",
                  "--to", "render-parked"],
                 ["docctl", "jobs", "count", "--tenant", "$(TENANT)", "--queue", "render-payslip"],
                 ["docctl", "jobs", "move", "--tenant", "$(TENANT)", "--from", "render-parked",
                  "--to", "render-payslip"],
                 "low", "render jobs of one tenant wait in render-parked", 60),
        ])

runbook("bankexport-pin-bank-hostkey",
        "Replace a bank's pinned SFTP host key on the relay VM after the bank confirms the fingerprint",
        ["bank-export"], ["sftp-failure", "payment-delay"], [
            step("show-offered-key", TOOLBOX,
                 ["sh", "-c", "ssh-keyscan -t ed25519,rsa $(BANK_HOST) | ssh-keygen -lf -"],
                 ["sh", "-c", "ssh-keyscan -t ed25519,rsa $(BANK_HOST) | ssh-keygen -lf -"], [],
                 "low", "read only", 10),
            step("replace-known-hosts-entry", AWS,
                 ["aws", "ssm", "send-command", "--instance-ids", "$(RELAY_INSTANCE_ID)",
                  "--document-name", "AWS-RunShellScript", "--parameters",
                  "commands=[\"cp /etc/bankexport/known_hosts /etc/bankexport/known_hosts.bak\","
                  "\"ssh-keygen -R $(BANK_HOST) -f /etc/bankexport/known_hosts\","
                  "\"echo '$(HOST_KEY_LINE)' >> /etc/bankexport/known_hosts\"]"],
                 ["aws", "ssm", "send-command", "--instance-ids", "$(RELAY_INSTANCE_ID)",
                  "--document-name", "AWS-RunShellScript", "--parameters",
                  "commands=[\"ssh-keygen -F $(BANK_HOST) -f /etc/bankexport/known_hosts\"]"],
                 ["aws", "ssm", "send-command", "--instance-ids", "$(RELAY_INSTANCE_ID)",
                  "--document-name", "AWS-RunShellScript", "--parameters",
                  "commands=[\"cp /etc/bankexport/known_hosts.bak /etc/bankexport/known_hosts\"]"],
                 "high", "uploads to one bank", 60),
            step("send-pending-files", AWS,
                 ["aws", "ssm", "send-command", "--instance-ids", "$(RELAY_INSTANCE_ID)",
                  "--document-name", "AWS-RunShellScript", "--parameters",
                  "commands=[\"bankexport run --bank $(BANK_ID) --pending\"]"],
                 ["aws", "ssm", "send-command", "--instance-ids", "$(RELAY_INSTANCE_ID)",
                  "--document-name", "AWS-RunShellScript", "--parameters",
                  "commands=[\"bankexport run --bank $(BANK_ID) --pending --list\"]"], [],
                 "medium", "payment files of one bank", 300),
        ])

runbook("docrender-restart-chromium-pods",
        "Restart wedged Chromium render pods and check that the render queue goes down",
        ["document-service"], ["queue-backlog", "pdf-render-failure"], [
            step("show-render-pods", KUBECTL,
                 ["kubectl", "get", "pods", "-n", "documents", "-l", "app=docrender-chromium", "-o", "wide"],
                 ["kubectl", "get", "scaledobject", "docrender-chromium", "-n", "documents", "-o", "yaml"],
                 [], "low", "read only", 5),
            step("rollout-restart", KUBECTL,
                 ["kubectl", "rollout", "restart", "deployment/docrender-chromium", "-n", "documents"],
                 ["kubectl", "rollout", "status", "deployment/docrender-chromium", "-n", "documents"],
                 [], "low", "in-flight renders are retried", 240),
            step("check-queue", KUBECTL,
                 ["kubectl", "exec", "-n", "documents", "deploy/docrender-dispatcher", "--", "docctl",
                  "queue", "stats", "--queue", "render-payslip"],
                 ["kubectl", "exec", "-n", "documents", "deploy/docrender-dispatcher", "--", "docctl",
                  "queue", "stats", "--queue", "render-payslip"], [],
                 "low", "read only", 10),
        ])

runbook("bankexport-update-connector-hostkey",
        "Update the trusted host key of a bank's SFTP connector, test it and resend pending files",
        ["bank-export"], ["sftp-failure", "payment-delay"], [
            step("describe-connector", AWS,
                 ["aws", "transfer", "describe-connector", "--connector-id", "$(CONNECTOR_ID)"],
                 ["aws", "transfer", "describe-connector", "--connector-id", "$(CONNECTOR_ID)"], [],
                 "low", "read only", 5),
            step("update-trusted-host-key", AWS,
                 ["aws", "transfer", "update-connector", "--connector-id", "$(CONNECTOR_ID)",
                  "--sftp-config", "UserSecretId=$(SECRET_ARN),TrustedHostKeys=$(HOST_KEY)"],
                 ["aws", "transfer", "test-connection", "--connector-id", "$(CONNECTOR_ID)"],
                 ["aws", "transfer", "update-connector", "--connector-id", "$(CONNECTOR_ID)",
                  "--sftp-config", "UserSecretId=$(SECRET_ARN),TrustedHostKeys=$(PREVIOUS_HOST_KEY)"],
                 "high", "uploads to one bank", 30),
            step("test-connection", AWS,
                 ["aws", "transfer", "test-connection", "--connector-id", "$(CONNECTOR_ID)"],
                 ["aws", "transfer", "test-connection", "--connector-id", "$(CONNECTOR_ID)"], [],
                 "low", "read only", 15),
            step("resend-pending-files", AWS,
                 ["aws", "stepfunctions", "start-execution", "--state-machine-arn",
                  "$(BANKEXPORT_SFN_ARN)", "--input", "{\"bank\":\"$(BANK_ID)\",\"mode\":\"pending\"}"],
                 ["aws", "stepfunctions", "list-executions", "--state-machine-arn",
                  "$(BANKEXPORT_SFN_ARN)", "--max-items", "5"], [],
                 "medium", "payment files of one bank", 300),
        ])

# When each runbook (revision) is applied. Runbooks of manual-first families
# are applied a few days after the first occurrence was fixed by hand.
RUNBOOK_APPLIES = [
    ("2025-01-02 00:00", "payroll-scale-calc-workers", 0),
    ("2025-01-02 00:01", "notify-failover-sms-provider", 0),
    ("2025-01-02 00:02", "docrender-recycle-vm-workers", 0),
    ("2025-01-02 00:03", "app-rollback-helm-release", 0),
    ("2025-01-13 10:00", "taxrates-force-reload-feed", 0),
    ("2025-01-17 15:00", "sso-refresh-tenant-idp-metadata", 0),
    ("2025-02-03 11:00", "bankexport-pin-bank-hostkey", 0),
    ("2025-02-14 16:00", "tenantdb-terminate-blocking-sessions", 0),
    ("2025-02-24 10:30", "sso-drain-skewed-node", 0),
    ("2025-02-28 14:00", "notify-throttle-sms-rate", 0),
    ("2025-03-10 11:00", "cdc-add-tenant-schema-and-snapshot", 0),
    ("2025-03-18 09:30", "docrender-pin-tenant-template", 0),
    ("2025-04-16 10:00", "tenantdb-terminate-blocking-sessions", 1),
    ("2025-05-06 09:00", "docrender-restart-chromium-pods", 0),
    ("2025-07-15 09:00", "bankexport-update-connector-hostkey", 0),
]

# ---------------------------------------------------------------------------
# Architecture migrations
# ---------------------------------------------------------------------------

MIGRATIONS = [
    {"at": "2025-05-10 06:00", "name": "document-service-vm-pool-to-chromium-on-k8s",
     "spec": {"targetService": "document-service", "migrationDate": "2025-05-10",
              "oldArch": "wkhtmltopdf 0.12 render workers on an EC2 Auto Scaling group "
                         "(docrender-workers-use1) consuming RabbitMQ render queues",
              "newArch": "Gotenberg 8 (headless Chromium) pods on EKS (deployment docrender-chromium), "
                         "scaled by KEDA on RabbitMQ queue depth; payloads read from the message and S3",
              "impactedRunbooks": ["docrender-recycle-vm-workers"],
              "impactedFixKeywords": ["instance refresh", "docrender-workers-use1", "wkhtmltopdf"],
              "confidenceDeduction": 30},
     "topology": TOPOLOGY_V2},
    {"at": "2025-07-19 06:00", "name": "bank-export-sftp-relay-to-transfer-connectors",
     "spec": {"targetService": "bank-export", "migrationDate": "2025-07-19",
              "oldArch": "OpenSSH sftp client on the sftp-relay-01 VM (static egress IP), bank host keys "
                         "pinned in /etc/bankexport/known_hosts, uploads run by cron",
              "newArch": "AWS Transfer Family SFTP connectors, one per bank, with TrustedHostKeys on each "
                         "connector; uploads driven by a Step Functions state machine",
              "impactedRunbooks": ["bankexport-pin-bank-hostkey"],
              "impactedFixKeywords": ["known_hosts", "sftp-relay-01", "ssh-keyscan"],
              "confidenceDeduction": 30},
     "topology": None},
]

# ---------------------------------------------------------------------------
# Failure families. A family is one failure under one condition; the two
# sides of a contradiction are two families. `runbook` is the fix while it
# exists; `after` maps a migration to the fix that replaces it.
# ---------------------------------------------------------------------------

FAMILIES = {
    "TAXFEED": {"runbook": "taxrates-force-reload-feed",
                "what": "RateSource re-issues a corrected tax table under the same effective date; the "
                        "tax-rates loader treats it as already loaded, previews use the old table"},
    "DOCHANG": {"runbook": "docrender-recycle-vm-workers",
                "after": {"document-service-vm-pool-to-chromium-on-k8s": "docrender-restart-chromium-pods"},
                "what": "render workers wedge (hung renderer processes) while health checks pass; the "
                        "payslip render queue stops going down"},
    "TEMPLATE": {"runbook": "docrender-pin-tenant-template",
                 "what": "one tenant publishes a payslip template that renders slowly or hangs; its "
                         "retried jobs tie up the whole render pool"},
    "SAMLCERT": {"runbook": "sso-refresh-tenant-idp-metadata",
                 "what": "a customer's IdP starts signing with a new certificate; every SAML response "
                         "for that tenant fails signature validation"},
    "SKEW": {"runbook": "sso-drain-skewed-node",
             "what": "a node's clock drifts (chrony not running); sso-gateway pods on it reject "
                     "assertions as not yet valid, for whichever tenants land there"},
    "SMSOUT": {"runbook": "notify-failover-sms-provider",
               "what": "the primary SMS provider (Relaytext) has an outage: 5xx and timeouts"},
    "SMS429": {"runbook": "notify-throttle-sms-rate",
               "what": "a pay-day wave of payslip-ready texts exceeds the Relaytext account send "
                       "rate: 429 / error 20429 with the provider healthy"},
    "PAYCPU": {"runbook": "payroll-scale-calc-workers",
               "what": "a large pay cycle makes the calc worker pool CPU-bound; batch behind schedule"},
    "PAYLOCK": {"runbook": "tenantdb-terminate-blocking-sessions",
                "what": "calc workers sit idle waiting on a lock held (or queued) by another "
                        "tenant-db session; batch stalls"},
    "HOSTKEY": {"runbook": "bankexport-pin-bank-hostkey",
                "after": {"bank-export-sftp-relay-to-transfer-connectors": "bankexport-update-connector-hostkey"},
                "what": "a bank rotates its SFTP host key; our client refuses to connect, payment "
                        "files are not delivered"},
    "CDCSCHEMA": {"runbook": "cdc-add-tenant-schema-and-snapshot",
                  "what": "a newly onboarded tenant's schema is not in the CDC publication; the "
                          "warehouse has no data for that tenant"},
    # one-offs
    "DST": {"runbook": None, "what": "time clocks stamp non-existent local times at the DST change"},
    "APIREL": {"runbook": "app-rollback-helm-release",
               "what": "public-api 4.12.0 breaks cursor paging on /v2/employees"},
    "NAMEID": {"runbook": None,
               "what": "a tenant's new IdP app sends NameID as e-mail; signature fine, user lookup fails"},
}

# ---------------------------------------------------------------------------
# Incidents
# ---------------------------------------------------------------------------

INCIDENTS = []
_UNSET = object()


def out(after, root, summary, actions, by, runbook=_UNSET):
    return {"after": after, "rootCause": root, "summary": summary, "actions": actions,
            "confirmedBy": by, "runbook": runbook}


def _add(key, at, fam, svc, sev, title, desc, sym, err, labels, started, dep, outcome, style):
    assert fam in FAMILIES, fam
    for s in sym:
        assert s in SYMPTOMS, (key, s)
    inc = {"key": key, "at": T(at), "family": fam, "service": svc, "severity": sev,
           "title": title, "description": desc, "symptoms": list(sym),
           "errorSignatures": list(err), "labels": labels, "started": started,
           "deployment": dep, "outcome": outcome, "style": style}
    INCIDENTS.append(inc)


def page(key, at, fam, svc, alertname, alert_sev, annotation, label=None, sym=(), started=9,
         dep=None, outcome=None):
    """An incident created by the Alertmanager bridge: title from alert name and
    labels, the summary annotation as description, few symptom tags."""
    labels = {"source": "alertmanager", "alertname": alertname, "severity": alert_sev,
              "namespace": NAMESPACE[svc], "team": TEAM[svc], "cluster": "prod-use1"}
    title = "[FIRING:1] %s %s" % (alertname, svc)
    if label:
        k, v = label
        labels[k] = v
        title += " (%s=%s)" % (k, v)
    sev = {"critical": "critical", "warning": "medium"}[alert_sev]
    _add(key, at, fam, svc, sev, title, annotation, sym, (), labels, started, dep, outcome, "page")


def human(key, at, fam, svc, sev, title, desc, sym, err=(), labels=None, started=30, dep=None,
          outcome=None):
    lab = {"team": TEAM[svc]}
    lab.update(labels or {})
    _add(key, at, fam, svc, sev, title, desc, sym, err, lab, started, dep, outcome, "human")


def dep(did, rev, minutes):
    return {"id": did, "revision": rev, "environment": "production", "minutesSinceDeploy": minutes}


OK, FAIL, PART = "succeeded", "failed", "partial"

# ----------------------------------------------------------------- January
human("tax1", "2025-01-08 09:40", "TAXFEED", "payroll-engine", "high",
      "Jan 15 previews: state withholding still on 2024 amounts for some employers",
      "Payroll ops flagged it during preview review. 38 employers fail the withholding variance "
      "check, all with employees in Colorado or Michigan. I spot-checked 6 employees by hand against "
      "the state 2025 withholding guides and our numbers match last year's tables. RateSource sent a bulletin on "
      "Jan 6 about corrected 2025 files. Previews lock Friday 17:00.",
      ["calc-variance", "wrong-tax", "deadline-risk"],
      ["variance check FAILED: state_wh delta 4.1% > 2.0% (employer=fenwick-builders, state=CO)"],
      {"source": "slack", "reporter": "payroll-ops"}, started=55,
      outcome=out(320,
                  "RateSource re-issued the 2025 Colorado and Michigan tables as version 2025.01.1 with "
                  "the same effective date. The tax-rates loader treats a manifest it has already seen "
                  "for an effective date as loaded, so the corrected version was never imported and "
                  "2025.01.0 stayed active.",
                  "Previews for 38 employers used the first 2025 CO/MI tables. Recomputing the previews "
                  "alone changed nothing because the active table was still the old one. The corrected "
                  "version had to be imported by hand past the loader's duplicate check, then previews "
                  "recomputed. Done before the Friday preview lock.",
                  [("recomputed previews for the 38 employers", FAIL, None),
                   ("imported RateSource 2025.01.1 for CO and MI by hand with the duplicate check "
                    "bypassed (taxctl feed import --ignore-etag)", OK, None),
                   ("recomputed previews; variance check passes for all 38", OK, None)],
                  "l.moreau"))

page("doc1", "2025-01-10 15:05", "DOCHANG", "document-service", "PayslipRenderQueueBacklog",
     "critical", "render-payslip queue depth above 20000 for 15m", ("queue", "render-payslip"),
     sym=["queue-backlog"], started=17,
     outcome=out(70,
                 "wkhtmltopdf child processes on the docrender VMs hung after long runs and never "
                 "exited. Every worker's eight render slots filled up with hung processes, so the pool "
                 "stopped consuming while the VMs stayed healthy in their Auto Scaling group.",
                 "Pay-day payslip rendering stopped with 26k jobs waiting. An instance refresh of the "
                 "render VM group replaced the wedged workers and the queue was empty 35 minutes later.",
                 [("ran runbook docrender-recycle-vm-workers (instance refresh of docrender-workers-use1)",
                   OK, "docrender-recycle-vm-workers")],
                 "a.nakamura"))

human("saml1", "2025-01-14 08:20", "SAMLCERT", "employee-portal", "high",
      "Harlow Logistics: nobody can log in to the employee portal",
      "CS ticket CS-20417. Harlow's HR admin says since this morning every employee gets 'We couldn't "
      "sign you in' right after the Microsoft login page. They need timesheets approved by noon for "
      "Friday's payroll. Other customers seem fine as far as we can tell.",
      ["login-failure"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "harlow-logistics",
       "ticket": "CS-20417"}, started=70,
      outcome=out(125,
                  "Harlow's Entra ID tenant rolled its SAML token-signing certificate. sso-gateway still "
                  "trusted only the certificate from the metadata imported at onboarding, so every "
                  "response failed signature validation (\"no trusted certificate matched\").",
                  "All Harlow employees were locked out of the portal for about three hours. The new "
                  "signing certificate was taken from Harlow's current federation metadata and added by "
                  "hand in the sso-gateway tenant settings; logins worked at once.",
                  [("asked Harlow IT whether anything changed; they confirmed a certificate rollover "
                    "the night before", OK, None),
                   ("downloaded Harlow's current federation metadata and imported the new signing "
                    "certificate by hand in the sso-gateway admin", OK, None)],
                  "p.osei"))

page("sms_out1", "2025-01-15 17:32", "SMSOUT", "notifications", "SmsDeliveryFailureRate", "critical",
     "SMS send failure ratio 0.64 over 10m (provider relaytext, us-east-1)", ("provider", "relaytext"),
     sym=["sms-failure"], started=12,
     outcome=out(50,
                 "Relaytext had a regional API outage in us-east (their status page showed a major "
                 "incident); sends returned HTTP 503 or timed out.",
                 "Pay-day texts and MFA codes were failing. SMS was moved to Pingwave until Relaytext "
                 "gave the all-clear at 19:10, then moved back.",
                 [("ran runbook notify-failover-sms-provider (Pingwave primary)", OK,
                   "notify-failover-sms-provider"),
                  ("made Relaytext primary again after their all-clear", OK, None)],
                 "r.lindqvist"))

human("paycpu1", "2025-01-28 06:10", "PAYCPU", "payroll-engine", "critical",
      "Month-end payroll batch running ~3h behind",
      "Jan 31 semi-monthly cycle: 1,940 employers queued, batch is at 41% after 4h, normally done by "
      "now. Calc workers all sitting at their 2 CPU limit, calc queue still ~180k jobs. Bank cutoff "
      "for these files is 14:00 ET Wednesday.",
      ["batch-delay", "cpu-saturation", "deadline-risk"], [],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=80,
      outcome=out(130,
                  "Month-end cycle plus year-start retro recalculations for the new 2025 tables roughly "
                  "doubled the calc jobs; the calc worker pool was CPU-bound at its HPA ceiling of 24.",
                  "The batch was CPU-bound, not blocked. Raising the HPA ceiling and the worker count "
                  "from 24 to 48 brought it back; it finished at 09:55, well before the bank cutoff.",
                  [("ran runbook payroll-scale-calc-workers (24 -> 48, HPA max 48)", OK,
                    "payroll-scale-calc-workers")],
                  "m.ferreira"))

human("host1", "2025-01-30 11:45", "HOSTKEY", "bank-export", "critical",
      "First Coastal ACH upload failing: host key verification failed",
      "bank-export job for First Coastal Bank (ODFI for ~300 of our employers) fails at connect, "
      "tried it twice. Files for the Feb 3 pay date are due at the bank by 17:00 today.",
      ["sftp-failure", "payment-delay", "deadline-risk"],
      ["Host key verification failed.",
       "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! (sftp.firstcoastal.example)"],
      {"source": "oncall", "reporter": "payments-oncall", "bank": "first-coastal"}, started=40,
      outcome=out(95,
                  "First Coastal rotated the host key of its SFTP server (announced by e-mail to a shared "
                  "mailbox nobody watched). The relay VM's known_hosts still held the old key, so OpenSSH "
                  "refused to connect.",
                  "ACH files for ~300 employers were held for 2.5 hours. After the bank confirmed the new "
                  "ED25519 fingerprint by phone, the bank's entry in known_hosts on sftp-relay-01 was "
                  "replaced by hand and the pending files were sent before the cutoff.",
                  [("called First Coastal's file-transfer desk and confirmed the new ED25519 fingerprint",
                    OK, None),
                   ("replaced First Coastal's line in /etc/bankexport/known_hosts on sftp-relay-01 by "
                    "hand and re-ran the pending uploads", OK, None)],
                  "s.haddad"))

# ---------------------------------------------------------------- February
page("saml2", "2025-02-06 13:02", "SAMLCERT", "sso-gateway", "SamlResponseValidationFailures",
     "critical", "SAML validation failure ratio 1.00 for tenant pinecrest-dental over 10m",
     ("tenant", "pinecrest-dental"), sym=["saml-error"], started=11,
     outcome=out(40,
                 "Pinecrest Dental's Okta admin activated a new signing certificate on their app ahead of "
                 "the old one's expiry; our copy of their metadata had only the old one.",
                 "Same failure as {saml1}: one tenant, every login failing signature validation. The "
                 "tenant's metadata was re-imported from their Okta metadata URL.",
                 [("ran runbook sso-refresh-tenant-idp-metadata for pinecrest-dental", OK,
                   "sso-refresh-tenant-idp-metadata")],
                 "p.osei"))

human("tax2", "2025-02-11 10:15", "TAXFEED", "tax-rates", "high",
      "tax-rates still serving NYC 2025.02.0, RateSource index says 2025.02.1",
      "Noticed while answering a customer question. RateSource bulletin 2025-07 (Feb 7) corrects the "
      "NYC resident tax table. Our /v1/versions shows 2025.02.0 active for NY-NYC and the nightly "
      "import job logged 'nothing new' three nights in a row. 112 employees across 9 employers have "
      "NYC withholding that doesn't match the bulletin's worked examples.",
      ["wrong-tax", "calc-variance"],
      ["feed-import: NY-NYC effective 2025-01-01 already loaded, skipping"],
      {"source": "slack", "reporter": "integrations-engineer"}, started=20,
      outcome=out(150,
                  "Same loader gap as {tax1}: the corrected NYC table kept its effective date, so the "
                  "nightly import considered it loaded.",
                  "NYC withholding for 112 employees was computed from a superseded table. Importing "
                  "2025.02.1 past the duplicate check and recomputing the Feb 14 previews fixed it.",
                  [("ran runbook taxrates-force-reload-feed for NY-NYC, version 2025.02.1", OK,
                    "taxrates-force-reload-feed")],
                  "l.moreau"))

human("paylock1", "2025-02-12 05:50", "PAYLOCK", "payroll-engine", "critical",
      "Payroll batch stuck at 62%, calc workers idle",
      "Feb 14 biweekly cycle stopped progressing at 05:10. Calc queue isn't going down but worker "
      "CPU is ~5%. payroll-engine 2025.02.3 went out at 04:58. Lots of 'canceling statement due to "
      "lock timeout' in worker logs.",
      ["batch-delay", "deadline-risk"],
      ["ERROR: canceling statement due to lock timeout",
       "calc job 88213411 retry 3/5 (tenant_meridian_foods)"],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=40,
      dep=dep("payroll-engine-2025.02.3", "2025.02.3", 52),
      outcome=out(185,
                  "A customer-success analyst's SQL console session ran an UPDATE on "
                  "tenant_meridian_foods.timesheet_lines at 03:40 and was left idle in transaction. Its "
                  "row locks blocked every calc job for Meridian; each worker that picked one up waited "
                  "until all 24 were waiting. The 04:58 release had nothing to do with it.",
                  "The batch stalled for two hours with idle workers. Adding workers made it worse (the "
                  "new ones also picked up Meridian jobs and waited, and the tenant-db pool ran out); "
                  "going back to the previous release changed nothing. Ending the idle-in-transaction "
                  "session freed the workers at once and the batch finished at 08:40.",
                  [("ran runbook payroll-scale-calc-workers (24 -> 40)", FAIL, "payroll-scale-calc-workers"),
                   ("ran runbook app-rollback-helm-release for payroll-engine (2025.02.3 -> 2025.02.2)",
                    FAIL, "app-rollback-helm-release"),
                   ("found the idle-in-transaction session in pg_stat_activity (pg_blocking_pids) and "
                    "ended it with pg_terminate_backend", OK, None),
                   ("set calc workers back to 24 and redeployed 2025.02.3", OK, None)],
                  "j.whitlock"))

human("doc2", "2025-02-13 16:20", "DOCHANG", "employee-portal", "high",
      "Employees at several customers see 'Payslip not available yet'",
      "Tickets from Oakhurst Schools and Tallis Engineering, both pay tomorrow. The portal shows "
      "the pay statement as 'processing' since this morning. Admins say last cycle the payslips "
      "were there by noon. No errors shown to them, just processing.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-21093"},
      started=95,
      outcome=out(95,
                  "Same wkhtmltopdf hang as {doc1}: hung renderer processes filled every slot on the "
                  "render VMs, which kept passing health checks; the payslip queue had not been consumed "
                  "since 11:40.",
                  "Portal showed payslips as processing because no PDFs were produced. An instance "
                  "refresh of the render VMs cleared it; 41k payslips rendered by 18:30.",
                  [("ran runbook docrender-recycle-vm-workers", OK, "docrender-recycle-vm-workers")],
                  "a.nakamura"))

page("skew1", "2025-02-19 14:05", "SKEW", "sso-gateway", "SamlResponseValidationFailures", "critical",
     "SAML validation failure ratio 0.21 over 10m (7 tenants)", None,
     sym=["saml-error"], started=14,
     dep=dep("eks-nodegroup-general-ami-20250217", "ami-20250217", 2890),
     outcome=out(150,
                 "Two nodes from the Feb 17 node image came up without chronyd enabled and their clocks "
                 "ran 90+ seconds ahead. sso-gateway pods on them rejected assertions as not yet valid "
                 "(NotBefore in the future), for whichever tenant's login landed on those pods.",
                 "About a fifth of SSO logins failed across seven tenants, seemingly at random. "
                 "Re-importing one tenant's IdP metadata changed nothing (the signatures were fine). "
                 "Cordoning and draining the two skewed nodes and enabling chronyd on them fixed it.",
                 [("ran runbook sso-refresh-tenant-idp-metadata for corvid-health (loudest ticket)", FAIL,
                   "sso-refresh-tenant-idp-metadata"),
                  ("found 'Assertion is not yet valid' only on pods of ip-10-40-12-77 and ip-10-40-19-3; "
                   "cordoned and drained both nodes by hand", OK, None),
                  ("enabled chronyd on the two nodes via SSM and fixed the node image", OK, None)],
                 "k.iyer"))

human("sms429_1", "2025-02-25 16:00", "SMS429", "notifications", "high",
      "Payslip-ready texts failing in bulk",
      "~40% of SMS in the 15:30 payslip-ready wave are failing. Relaytext returns 429 on most of them. "
      "Relaytext status page is green. notify queue at 310k messages and climbing.",
      ["sms-failure", "rate-limited"],
      ["relaytext: HTTP 429 Too Many Requests (error 20429: account send rate exceeded)"],
      {"source": "oncall", "reporter": "messaging-oncall"}, started=25,
      outcome=out(150,
                  "The Feb 25 pay-day wave queues a payslip-ready text for every employee of ~600 "
                  "employers at once. Our sender ran at 400 msg/s against a Relaytext account limit of "
                  "250 msg/s, so most sends got 429 and were retried, keeping the rate above the limit.",
                  "This was our own send rate, not a provider outage. Moving SMS to Pingwave made it "
                  "worse (Pingwave's account limit is 100 msg/s; failures went from 40% to 70%). With "
                  "Relaytext primary again and the sender lowered to 200 msg/s by hand, the queue "
                  "cleared in 50 minutes.",
                  [("ran runbook notify-failover-sms-provider (Pingwave primary)", FAIL,
                    "notify-failover-sms-provider"),
                   ("made Relaytext primary again and lowered the SMS sender to 200 msg/s by hand in the "
                    "notifications config", OK, None)],
                  "r.lindqvist"))

page("paycpu2", "2025-02-26 07:30", "PAYCPU", "payroll-engine", "PayrollBatchBehindSchedule", "critical",
     "projected batch completion 13:40 is after cutoff 11:00", ("cycle", "2025-02-28-sm"),
     sym=["batch-delay"], started=6,
     outcome=out(95,
                 "Feb 28 semi-monthly cycle (2,050 employers) kept the calc workers CPU-bound at 24 "
                 "replicas; calc queue at 210k with jobs completing normally.",
                 "Workers busy, not waiting: added workers to 44 and the batch finished at 10:20.",
                 [("checked kubectl top: calc workers at 1.9-2.0 CPU each, no lock waits in "
                   "pg_stat_activity", OK, None),
                  ("ran runbook payroll-scale-calc-workers (24 -> 44)", OK, "payroll-scale-calc-workers")],
                 "m.ferreira"))

page("host2", "2025-02-27 12:10", "HOSTKEY", "bank-export", "BankExportTransferFailed", "critical",
     "2 consecutive SFTP upload failures for northgate-trust", ("bank", "northgate-trust"),
     sym=["sftp-failure"], started=8,
     outcome=out(65,
                 "Northgate Trust moved its SFTP service to a new host with a new host key; our relay "
                 "refused the unknown key.",
                 "Northgate's files were held for an hour. After Northgate confirmed the fingerprint, "
                 "the new key was pinned on the relay and the pending files went out.",
                 [("confirmed the new RSA-4096 and ED25519 fingerprints with Northgate's support line",
                   OK, None),
                  ("ran runbook bankexport-pin-bank-hostkey for northgate-trust", OK,
                   "bankexport-pin-bank-hostkey")],
                 "s.haddad"))

# ------------------------------------------------------------------- March
human("cdc1", "2025-03-06 10:30", "CDCSCHEMA", "reporting-warehouse", "medium",
      "Kestrel Freight's reports are empty",
      "Kestrel Freight went live on Mar 3 and ran their first payroll yesterday. Their admin says the "
      "Labor Cost and Payroll Register dashboards show no data at all, not even employees. Other "
      "customers' dashboards updated this morning as usual. Not urgent for pay but they have a board "
      "meeting Friday.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "kestrel-freight",
       "ticket": "CS-21877"}, started=90,
      outcome=out(1500,
                  "The Debezium connector reads publication warehouse_pub, which lists tables explicitly. "
                  "Tenant onboarding creates the tenant schema (tenant_kestrel_freight) but nothing adds "
                  "its tables to the publication, so no change events were ever produced for the new "
                  "tenant.",
                  "The warehouse had no rows for a tenant onboarded after the connector's publication was "
                  "last edited. Restarting the connector did nothing. Adding the tenant's tables to "
                  "warehouse_pub and signalling an incremental snapshot loaded their history overnight.",
                  [("restarted the Debezium connector task", FAIL, None),
                   ("added tenant_kestrel_freight tables to warehouse_pub by hand and inserted an "
                    "execute-snapshot signal for them", OK, None),
                   ("opened a ticket to make onboarding add new schemas to the publication", OK, None)],
                  "v.castellano"))

human("saml3", "2025-03-10 09:05", "SAMLCERT", "employee-portal", "high",
      "Corvid Health SSO down - 'invalid signature' after their ADFS work",
      "Corvid's IT did ADFS maintenance over the weekend. Since then employees land on our SSO error "
      "page with 'invalid signature'. Their IT insists their side is fine because other apps work. "
      "Nurses can't see their schedules-linked timesheets, Corvid's payroll approval is tomorrow.",
      ["login-failure", "saml-error"],
      ["SAMLSignatureException: Signature cryptographic validation not successful (tenant=corvid-health)"],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "corvid-health",
       "ticket": "CS-21950"}, started=60,
      outcome=out(300,
                  "ADFS AutoCertificateRollover promoted Corvid's secondary token-signing certificate "
                  "during their maintenance; our copy of their metadata only had the old primary.",
                  "Corvid's logins failed signature validation from Saturday until Monday 14:00. The "
                  "tenant's metadata was re-imported from their ADFS federation metadata URL once Corvid "
                  "IT opened it to our egress IPs.",
                  [("asked Corvid IT to allow our egress IPs to reach their FederationMetadata.xml", OK,
                    None),
                   ("ran runbook sso-refresh-tenant-idp-metadata for corvid-health", OK,
                    "sso-refresh-tenant-idp-metadata")],
                  "t.brennan"))

human("dst1", "2025-03-10 13:20", "DST", "time-ingest", "high",
      "Missing punches from Saturday night shifts after the clock change",
      "Oakhurst Schools (custodial night crew) and Corvid Health (nurses) report that Saturday-night "
      "shifts have no clock-out, so the timesheets are flagged incomplete. time-ingest has a spike of "
      "rejected punches Sunday between 02:00 and 03:30 local. Approval deadline for Friday's payroll "
      "is Wednesday.",
      ["missing-data", "ingest-rejects"],
      ["punch rejected: local time 2025-03-09T02:14:00 does not exist in zone America/New_York "
       "(device=tc400-0x9f21)"],
      {"source": "slack", "reporter": "time-team"}, started=45,
      outcome=out(360,
                  "The two customers' TimeCraft TC-400 clocks (firmware 3.1) stamp punches in local wall "
                  "time without an offset and only applied the DST change at their 03:30 sync. Punches "
                  "in between carried wall times that do not exist on Mar 9, and time-ingest rejected "
                  "them.",
                  "212 punches were rejected. They were re-ingested from the dead-letter topic with an "
                  "explicit -04:00 offset and both customers were asked to enable the clocks' network "
                  "time sync. Nothing in the platform needed to change; no earlier incident was like it.",
                  [("re-ingested the 212 rejected punches from time-ingest.dlq with an explicit -04:00 "
                    "offset", OK, None),
                   ("asked Oakhurst and Corvid to enable time zone sync on their clocks", OK, None)],
                  "e.duarte"))

human("paylock2", "2025-03-12 06:40", "PAYLOCK", "payroll-engine", "critical",
      "biweekly run flatlined, workers just sitting there",
      "Progress stuck at 3,112/5,080 employers since 06:05. Worker CPU near zero, 24/24 workers "
      "busy on jobs that never finish. pg_stat_activity shows them all with wait_event_type Lock on "
      "tenant_tallis_engineering.pay_items. Cutoff 11:00.",
      ["batch-delay", "db-lock-wait", "deadline-risk"],
      ["wait_event_type=Lock wait_event=relation (tenant_tallis_engineering.pay_items)"],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=35,
      outcome=out(70,
                  "A tenant schema migration (ALTER TABLE tenant_tallis_engineering.pay_items ADD COLUMN) "
                  "queued for an ACCESS EXCLUSIVE lock behind a 40-minute export query from public-api; "
                  "every calc query on the table then queued behind the ALTER.",
                  "Classic lock queue: one long read, one DDL waiting for it, everything else waiting for "
                  "the DDL. Ending the blocking sessions released the calc workers; the batch finished "
                  "at 09:30.",
                  [("ran runbook tenantdb-terminate-blocking-sessions (ended the export query and the "
                    "waiting ALTER)", OK, "tenantdb-terminate-blocking-sessions"),
                   ("re-ran the Tallis schema migration after the batch", OK, None)],
                  "j.whitlock"))

page("tmpl1", "2025-03-13 15:40", "TEMPLATE", "document-service", "PayslipRenderQueueBacklog",
     "critical", "render-payslip queue depth above 20000 for 15m", ("queue", "render-payslip"),
     sym=["queue-backlog"], started=16,
     dep=dep("document-service-2025.03.2", "2025.03.2", 2950),
     outcome=out(250,
                 "Bramble & Finch published a new payslip template on Mar 12 whose header pulls a web "
                 "font from an external URL that no longer answers and embeds a 14 MB SVG logo. Each of "
                 "their 4,000 payslips hung a renderer until the 120 s timeout and was retried three "
                 "times, tying up the whole pool.",
                 "Looked exactly like the hung-renderer backlog of {doc1} and {doc2}, but replacing the "
                 "render VMs only helped for 20 minutes: the same tenant's jobs wedged the new VMs. "
                 "Putting Bramble & Finch's template back to the previous version and parking their "
                 "queued jobs cleared the queue; the parked jobs were re-queued after the customer fixed "
                 "the template.",
                 [("ran runbook docrender-recycle-vm-workers", FAIL, "docrender-recycle-vm-workers"),
                  ("found 93% of render time going to tenant_bramble_finch jobs; set their template back "
                   "to the previous version and moved their queued jobs to a parking queue by hand", OK,
                   None),
                  ("re-queued the parked jobs after the customer removed the external font", OK, None)],
                 "a.nakamura"))

page("smsout2", "2025-03-17 12:15", "SMSOUT", "notifications", "SmsDeliveryFailureRate", "critical",
     "SMS send failure ratio 0.88 over 10m (provider relaytext, us-east-1)", ("provider", "relaytext"),
     sym=["sms-failure"], started=10,
     outcome=out(60,
                 "Relaytext API outage (a carrier gateway incident on their side, posted on their status "
                 "page at 12:09); sends timed out or returned 502/503, not 429.",
                 "Because the latest SMS incident ({sms429_1}) had been fixed by lowering the send rate, "
                 "that was tried first and did nothing: the provider was down, not limiting us. Moving SMS "
                 "to Pingwave fixed delivery within minutes.",
                 [("ran runbook notify-throttle-sms-rate (400 -> 150 msg/s)", FAIL, "notify-throttle-sms-rate"),
                  ("ran runbook notify-failover-sms-provider", OK, "notify-failover-sms-provider"),
                  ("set the send rate back to 250 msg/s and Relaytext primary after their all-clear", OK,
                   None)],
                 "d.kowalczyk"))

page("tax3", "2025-03-26 08:50", "TAXFEED", "payroll-engine", "PayrollPreviewVarianceHigh", "warning",
     "withholding variance check failed for 57 employers in the last preview run",
     ("cycle", "2025-03-31-sm"), sym=["calc-variance"], started=25,
     outcome=out(130,
                 "RateSource re-issued the Maryland county rates as 2025.03.1 (same effective date) on "
                 "Mar 24; the loader kept 2025.03.0 active.",
                 "Preview variance for 57 Maryland employers. Imported the corrected version and "
                 "recomputed the previews.",
                 [("ran runbook taxrates-force-reload-feed for MD, version 2025.03.1", OK,
                   "taxrates-force-reload-feed")],
                 "l.moreau"))

human("doc3", "2025-03-27 14:30", "DOCHANG", "document-service", "high",
      "render-payslip not consuming",
      "Queue at 19k, consume rate 0 for the last 25 min. The six render VMs are InService and "
      "healthy, load average under 1. Pay date tomorrow for the quarter-end cycle.",
      ["queue-backlog", "deadline-risk"], [],
      {"source": "oncall", "reporter": "docs-oncall"}, started=30,
      outcome=out(50,
                  "Hung wkhtmltopdf processes again, as in {doc1} and {doc2}; each VM had all eight slots "
                  "occupied by processes started around 13:50.",
                  "Render VMs replaced; the queue was empty by 15:40.",
                  [("ran runbook docrender-recycle-vm-workers", OK, "docrender-recycle-vm-workers")],
                  "b.achterberg"))

page("paycpu3", "2025-03-28 05:20", "PAYCPU", "payroll-engine", "PayrollBatchBehindSchedule", "critical",
     "projected batch completion 12:55 is after cutoff 11:00", ("cycle", "2025-03-31-sm"),
     sym=["batch-delay"], started=7,
     dep=dep("payroll-engine-2025.03.4", "2025.03.4", 4100),
     outcome=out(85,
                 "Quarter-end cycle with Q1 bonus runs for 300 employers; calc workers CPU-bound at 24.",
                 "Workers were busy (about 2 CPU each) and no calc query waited on a lock. Added workers "
                 "to 48; the batch finished at 09:05.",
                 [("ran runbook payroll-scale-calc-workers (24 -> 48)", OK, "payroll-scale-calc-workers")],
                 "f.oyelaran"))

human("sms429_2", "2025-03-31 15:45", "SMS429", "notifications", "medium",
      "Quarter-end payslip texts: lots of 'rate exceeded' from Relaytext",
      "SMS failures ~35% since the 15:30 wave, Relaytext returning error 20429. Their status page "
      "is fine.",
      ["sms-failure", "rate-limited"], [],
      {"source": "slack", "reporter": "messaging-oncall"}, started=12,
      outcome=out(40,
                  "The quarter-end payslip-ready wave exceeded the Relaytext account send rate again; the "
                  "sender had been set back to 400 msg/s after {sms429_1}.",
                  "Lowered the send rate to 220 msg/s and spread the payslip-ready texts over 90 minutes; "
                  "failures stopped within 5 minutes.",
                  [("ran runbook notify-throttle-sms-rate (400 -> 220 msg/s, payslip-ready spread 90m)",
                    OK, "notify-throttle-sms-rate")],
                  "r.lindqvist"))

# ------------------------------------------------------------------- April
page("api1", "2025-04-03 19:10", "APIREL", "public-api", "PublicApiErrorRateHigh", "critical",
     "5xx ratio 0.31 on /v2/employees over 10m", ("route", "/v2/employees"),
     sym=["5xx"], started=9,
     dep=dep("public-api-4.12.0", "4.12.0", 35),
     outcome=out(60,
                 "public-api 4.12.0 changed the /v2/employees list cursor to a composite (updated_at, id) "
                 "key, but the encoder dropped the id for rows with equal timestamps. HRIS integrations "
                 "paging with updatedSince got a 500 when the next cursor was decoded.",
                 "Integrations syncing employees failed for 40 minutes after the 4.12.0 release. Going "
                 "back to 4.11.3 fixed it; the cursor encoder was fixed in 4.12.1.",
                 [("ran runbook app-rollback-helm-release for public-api (4.12.0 -> 4.11.3)", OK,
                   "app-rollback-helm-release")],
                 "n.sorensen"))

human("host3", "2025-04-09 10:40", "HOSTKEY", "bank-export", "high",
      "Summit FCU uploads rejected on our side since last night",
      "The 22:00 and 06:00 bank-export runs for Summit Federal Credit Union both ended with the same "
      "error. Summit sent a notice last week about 'security upgrades on our file transfer "
      "platform'. 61 employers, pay date Friday.",
      ["sftp-failure", "payment-delay"],
      ["Host key for sftp.summitfcu.example has changed and you have requested strict checking."],
      {"source": "oncall", "reporter": "payments-oncall", "bank": "summit-fcu"}, started=70,
      outcome=out(110,
                  "Summit FCU replaced its SFTP server's RSA-2048 host key with an ED25519 key as part of "
                  "their platform upgrade.",
                  "Two runs failed on the unknown host key. After Summit confirmed the fingerprint, the "
                  "new key was pinned on the relay and both runs were re-sent.",
                  [("ran runbook bankexport-pin-bank-hostkey for summit-fcu after confirming the "
                    "fingerprint with Summit", OK, "bankexport-pin-bank-hostkey")],
                  "s.haddad"))

page("cdc2", "2025-04-10 07:55", "CDCSCHEMA", "reporting-warehouse", "WarehouseTenantFreshnessLag",
     "warning", "no rows loaded for tenant larkspur_retail in 24h", ("tenant", "larkspur_retail"),
     sym=["data-stale"], started=20,
     outcome=out(190,
                 "Larkspur Retail was onboarded on Apr 8 and its schema was not in warehouse_pub (the "
                 "onboarding fix from {cdc1} had not shipped yet).",
                 "Added the tenant schema to the publication and snapshotted it; data visible at 11:00.",
                 [("ran runbook cdc-add-tenant-schema-and-snapshot for tenant_larkspur_retail", OK,
                   "cdc-add-tenant-schema-and-snapshot")],
                 "v.castellano"))

page("paylock3", "2025-04-11 05:35", "PAYLOCK", "payroll-engine", "PayrollBatchBehindSchedule",
     "critical", "projected batch completion 14:10 is after cutoff 11:00", ("cycle", "2025-04-15-sm"),
     sym=["batch-delay"], started=8,
     outcome=out(125,
                 "A DBA maintenance script started VACUUM FULL on tenant_meridian_foods.pay_items at "
                 "04:50 (it should run on Sundays only); it holds an ACCESS EXCLUSIVE lock, and every "
                 "calc job for Meridian waited on it until all workers were waiting.",
                 "The calc workers were idle and waiting on a lock, as in {paylock1} and {paylock2}. The "
                 "runbook ended the VACUUM FULL session and the batch resumed, but its filter also "
                 "matched the long-lived replication session of the CDC connector, which stopped the "
                 "warehouse feed for an hour until the connector was restarted. The runbook was revised "
                 "afterwards to leave replication and batch sessions alone.",
                 [("ran runbook tenantdb-terminate-blocking-sessions (ended the VACUUM FULL session; also "
                   "ended cdc_replicator's walsender)", PART, "tenantdb-terminate-blocking-sessions"),
                  ("restarted the Debezium connector task that lost its replication session", OK, None),
                  ("moved the VACUUM FULL script to its Sunday window", OK, None)],
                 "f.oyelaran", runbook="tenantdb-terminate-blocking-sessions"))

page("saml4", "2025-04-14 08:10", "SAMLCERT", "sso-gateway", "SamlResponseValidationFailures",
     "critical", "SAML validation failure ratio 1.00 for tenant meridian-foods over 10m",
     ("tenant", "meridian-foods"), sym=["saml-error"], started=12,
     outcome=out(75,
                 "Meridian Foods' IT replaced the signing certificate of their PingFederate connection "
                 "on Sunday night.",
                 "The on-call remembered the same alert from the February clock-skew incident "
                 "({skew1}) and drained the node of one failing pod first; no change, because every "
                 "Meridian login failed on every pod. Re-importing Meridian's IdP metadata fixed it.",
                 [("ran runbook sso-drain-skewed-node on the node of a failing sso-gateway pod", FAIL,
                   "sso-drain-skewed-node"),
                  ("ran runbook sso-refresh-tenant-idp-metadata for meridian-foods", OK,
                   "sso-refresh-tenant-idp-metadata")],
                 "k.iyer"))

human("skew2", "2025-04-15 13:30", "SKEW", "sso-gateway", "high",
      "SSO errors for random customers, comes and goes",
      "Support has 9 tickets in the last hour from different customers; logging in sometimes works "
      "on the second try. sso-gateway logs say the assertion is not yet valid. Only pods on two "
      "nodes of the new c7i node group show it.",
      ["login-failure", "intermittent"],
      ["Assertion NotBefore 2025-04-15T13:21:07Z is in the future (allowed skew 30s)"],
      {"source": "oncall", "reporter": "identity-oncall"}, started=55,
      outcome=out(60,
                  "The new c7i node group used a launch template copied from the Feb 17 image before it "
                  "was fixed; chronyd was disabled and two nodes ran 70 s ahead.",
                  "Same as {skew1}. The two nodes were drained and chrony enabled; failures stopped. The "
                  "launch template was fixed.",
                  [("ran runbook sso-drain-skewed-node for both nodes", OK, "sso-drain-skewed-node"),
                   ("fixed the c7i launch template", OK, None)],
                  "p.osei"))

human("smsout3", "2025-04-24 16:50", "SMSOUT", "notifications", "high",
      "Texts failing, Relaytext timing out",
      "Since 16:35 about 80% of SMS sends end in a timeout or a 503 from Relaytext. Their status page "
      "says 'Investigating - elevated API errors'. MFA codes for portal logins are affected too.",
      ["sms-failure", "provider-error", "timeout"],
      ["relaytext: POST /v2/messages: context deadline exceeded", "relaytext: HTTP 503 Service Unavailable"],
      {"source": "slack", "reporter": "messaging-oncall"}, started=15,
      outcome=out(55,
                  "Relaytext API outage (their incident RT-2025-0424, a database failover on their side).",
                  "Provider outage, not our send rate. Moved SMS to Pingwave; delivery recovered at once. "
                  "Back to Relaytext at 19:30.",
                  [("ran runbook notify-failover-sms-provider", OK, "notify-failover-sms-provider")],
                  "d.kowalczyk"))

human("tmpl2", "2025-04-25 14:20", "TEMPLATE", "employee-portal", "high",
      "Payslips 'processing' for hours at several customers",
      "Five customers called in since 12:30, payslips for today's pay date are still processing. "
      "Possibly unrelated: Pinecrest Dental's admin mentioned they uploaded a new payslip layout this "
      "morning with their new branding.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-23011"},
      started=100,
      outcome=out(130,
                  "Pinecrest Dental's new payslip layout embeds a 6,000 x 6,000 PNG background on every "
                  "page; each render took 90-120 s and timed out, and the retries held most render slots.",
                  "Same pattern as {tmpl1}: one tenant's template hogging the render pool. Pinecrest's "
                  "template was put back to its previous version and their jobs parked; the queue "
                  "recovered in 30 minutes and Pinecrest's payslips were rendered after they fixed the "
                  "image.",
                  [("ran runbook docrender-pin-tenant-template for pinecrest-dental", OK,
                    "docrender-pin-tenant-template")],
                  "b.achterberg"))

human("paycpu4", "2025-04-28 06:00", "PAYCPU", "payroll-engine", "critical",
      "Apr 30 cycle behind, calc pods pegged",
      "Batch at 35% after 3h. Calc pods are all at their CPU limit and the calc queue is at 240k. "
      "Cutoff 11:00. Is this the lock thing again?",
      ["batch-delay", "cpu-saturation", "deadline-risk"], [],
      {"source": "slack", "reporter": "payroll-oncall"}, started=45,
      outcome=out(110,
                  "Month-end cycle plus first-of-quarter benefit deductions for 420 employers; the calc "
                  "workers were CPU-bound at 24.",
                  "Suspecting the lock problem of {paylock3}, the on-call ran the blocking-session "
                  "runbook first: it found no blockers and changed nothing. The workers were simply "
                  "CPU-bound; adding workers to 48 finished the batch by 09:40.",
                  [("ran runbook tenantdb-terminate-blocking-sessions", FAIL,
                    "tenantdb-terminate-blocking-sessions"),
                   ("ran runbook payroll-scale-calc-workers (24 -> 48)", OK, "payroll-scale-calc-workers")],
                  "j.whitlock"))

# --------------------------------------------------------------------- May
human("doc4", "2025-05-08 15:10", "DOCHANG", "document-service", "critical",
      "Payslip renders crawling, render VMs look healthy",
      "render-payslip at 31k and rising, consume rate near 0. All 6 docrender VMs pass health checks, "
      "CPU ~3%. ps on one shows 8 wkhtmltopdf procs started around 09:00, all sleeping. Pay date "
      "tomorrow for ~700 employers. (The new Chromium pool isn't live until Saturday.)",
      ["queue-backlog", "pdf-render-failure", "deadline-risk"],
      ["docrender-worker: slot pool exhausted (8/8 busy), oldest job 21340s"],
      {"source": "oncall", "reporter": "docs-oncall"}, started=40,
      outcome=out(60,
                  "Hung wkhtmltopdf processes filled every render slot on the VM pool, as in {doc3}.",
                  "Last occurrence on the VM pool before the move to Chromium on Kubernetes. Instance "
                  "refresh cleared it.",
                  [("ran runbook docrender-recycle-vm-workers", OK, "docrender-recycle-vm-workers")],
                  "a.nakamura"))

human("host4", "2025-05-13 11:20", "HOSTKEY", "bank-export", "critical",
      "First Coastal SFTP refusing us again",
      "Same bank as January. Upload of the 11:00 batch fails before auth. Bank's notice from "
      "yesterday in the payments inbox says they 'refreshed server credentials'.",
      ["sftp-failure", "payment-delay"],
      ["Host key verification failed.", "lost connection"],
      {"source": "slack", "reporter": "payments-oncall", "bank": "first-coastal"}, started=20,
      outcome=out(45,
                  "First Coastal rotated its SFTP host key again (their yearly rotation, this time "
                  "announced the day before).",
                  "Confirmed the fingerprint with the bank and pinned the new key; the 11:00 batch went "
                  "out at 12:05.",
                  [("ran runbook bankexport-pin-bank-hostkey for first-coastal", OK,
                    "bankexport-pin-bank-hostkey")],
                  "c.mbeki"))

human("saml5", "2025-05-14 09:30", "SAMLCERT", "sso-gateway", "high",
      "Signature validation failures for the Fenwick Builders tenant",
      "sso-gateway logs for tenant fenwick-builders: every assertion since 07:12 fails with "
      "'Signature cryptographic validation not successful'. Node clocks checked, all within 1s. "
      "Fenwick's metadata URL is reachable. Other tenants fine.",
      ["saml-error", "login-failure"],
      ["SAMLSignatureException: Signature cryptographic validation not successful (tenant=fenwick-builders)"],
      {"source": "oncall", "reporter": "identity-oncall", "tenant": "fenwick-builders"}, started=25,
      outcome=out(35,
                  "Fenwick Builders' Entra ID app rolled to a new signing certificate at 07:10.",
                  "Re-imported Fenwick's metadata; logins worked again at 09:58.",
                  [("ran runbook sso-refresh-tenant-idp-metadata for fenwick-builders", OK,
                    "sso-refresh-tenant-idp-metadata")],
                  "t.brennan"))

page("doc5", "2025-05-15 14:45", "DOCHANG", "document-service", "DocrenderQueueDepthHigh", "critical",
     "render-payslip ready messages above 20000 for 15m", ("scaledobject", "docrender-chromium"),
     sym=["queue-backlog"], started=15,
     outcome=out(80,
                 "Chromium in the Gotenberg pods stopped completing conversions after a few thousand "
                 "documents (renderer processes left hanging). The pods stayed Ready because the probe "
                 "only checks Gotenberg's HTTP server, so KEDA kept them and nothing consumed.",
                 "The same hung-renderer failure as {doc4}, on the new platform. The old instance refresh "
                 "was tried out of habit and could not work: the render VM group was decommissioned at "
                 "the May 10 migration. A rollout restart of docrender-chromium brought consumption back "
                 "and the queue was empty by 16:10.",
                 [("ran runbook docrender-recycle-vm-workers", FAIL, "docrender-recycle-vm-workers"),
                  ("ran runbook docrender-restart-chromium-pods", OK, "docrender-restart-chromium-pods")],
                 "b.achterberg"))

human("tax4", "2025-05-20 10:05", "TAXFEED", "payroll-engine", "medium",
      "Customer says Ohio school district tax missing on preview",
      "Redmarsh Farms' payroll admin (ticket CS-23780): on the May 23 preview, OH school district tax "
      "is 0 for the 14 employees who live in the Tri-Valley district. It was withheld in April. "
      "Nothing changed on their employee records, they say.",
      ["wrong-tax"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "redmarsh-farms",
       "ticket": "CS-23780"}, started=90,
      outcome=out(2880,
                  "RateSource re-issued the Ohio school district file as 2025.05.1 to restore districts "
                  "dropped from 2025.05.0; same effective date, so tax-rates never imported it.",
                  "Looked like a data problem on the customer's side at first; re-saving the employees' "
                  "addresses did nothing. The active OH-SD table was missing Tri-Valley. Imported "
                  "2025.05.1 and recomputed previews; confirmed with the customer two days later.",
                  [("re-saved the 14 employees' residence addresses to force a district lookup", FAIL, None),
                   ("ran runbook taxrates-force-reload-feed for OH-SD, version 2025.05.1", OK,
                    "taxrates-force-reload-feed")],
                  "l.moreau"))

human("paylock4", "2025-05-22 06:15", "PAYLOCK", "payroll-engine", "critical",
      "Biweekly calc stalled right after this morning's payroll-engine release",
      "payroll-engine 2025.05.2 deployed at 05:45; the May 23 biweekly run stopped moving at 05:58. "
      "Workers up, almost no CPU. A few 'lock timeout' errors, mostly jobs just hanging. Do we go back "
      "to 2025.05.1?",
      ["batch-delay", "deadline-risk"],
      ["ERROR: canceling statement due to lock timeout",
       "calc job 91877002 running 1140s (tenant_oakhurst_schools)"],
      {"source": "slack", "reporter": "payroll-oncall"}, started=20,
      dep=dep("payroll-engine-2025.05.2", "2025.05.2", 30),
      outcome=out(55,
                  "An integration partner's bulk time import through public-api held a transaction open "
                  "for 25 minutes on tenant_oakhurst_schools.timesheet_lines; calc jobs for Oakhurst "
                  "waited on its row locks until all workers were waiting. The release was unrelated.",
                  "Idle workers waiting on locks, as in {paylock1}, {paylock2} and {paylock3}. The revised "
                  "runbook ended the partner's session and left replication alone; the batch finished at "
                  "08:30. The release stayed.",
                  [("ran runbook tenantdb-terminate-blocking-sessions (revision 2)", OK,
                    "tenantdb-terminate-blocking-sessions")],
                  "m.ferreira"))

page("sms429_3", "2025-05-27 15:50", "SMS429", "notifications", "SmsDeliveryFailureRate", "warning",
     "SMS send failure ratio 0.38 over 10m (provider relaytext, us-east-1)", ("provider", "relaytext"),
     sym=["sms-failure"], started=13,
     outcome=out(35,
                 "Payslip-ready wave for the May 30 pay date; the send rate had been raised to 350 msg/s "
                 "for an MFA campaign and not set back. Relaytext answered 20429.",
                 "Not an outage: Relaytext's status page was green and errors were 429. Lowered the rate "
                 "and spread the wave.",
                 [("ran runbook notify-throttle-sms-rate (350 -> 220 msg/s)", OK, "notify-throttle-sms-rate")],
                 "d.kowalczyk"))

human("paycpu5", "2025-05-28 06:20", "PAYCPU", "payroll-engine", "critical",
      "May 30 semi-monthly: ETA past the bank cutoff",
      "Projected finish 12:20 vs 11:00 cutoff. 2,110 employers. Calc workers 24/24 at ~1.95 CPU "
      "each, nothing waiting in pg_stat_activity, jobs completing at the usual per-job time, "
      "there are just a lot of them.",
      ["batch-delay", "cpu-saturation"], [],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=30,
     outcome=out(80,
                 "Month-end cycle; calc workers CPU-bound at the HPA ceiling of 24 (the ceiling had been "
                 "set back after April).",
                 "Busy workers, no lock waits. Added workers; batch finished 09:50. The HPA ceiling for "
                 "month-end cycles was left at 48.",
                 [("ran runbook payroll-scale-calc-workers (24 -> 48)", OK, "payroll-scale-calc-workers")],
                 "f.oyelaran"))

human("cdc3", "2025-05-29 09:00", "CDCSCHEMA", "reporting-warehouse", "medium",
      "warehouse: two tenants from the May onboarding batch have zero rows",
      "Data team here. Freshness check shows tenant_juniper_ortho and tenant_tidewater_marine have "
      "never had a row in raw.pay_items. Both onboarded May 26. All other tenants are current, "
      "connector lag is 4 s.",
      ["missing-data", "data-stale"], [],
      {"source": "slack", "reporter": "data-team"}, started=60,
      outcome=out(10080,
                  "Both schemas were created by onboarding after the last change to warehouse_pub; the "
                  "onboarding change from {cdc1} still was not deployed.",
                  "Added both schemas to the publication and snapshotted them the same morning; closed a "
                  "week later once the customers confirmed their dashboards and the onboarding change "
                  "shipped.",
                  [("ran runbook cdc-add-tenant-schema-and-snapshot for both tenants", OK,
                    "cdc-add-tenant-schema-and-snapshot")],
                  "v.castellano"))

# -------------------------------------------------------------------- June
human("nameid1", "2025-06-04 08:40", "NAMEID", "employee-portal", "high",
      "SSO broken for Tallis Engineering since this morning",
      "Tallis Engineering's HR says users get an error after the Microsoft sign-in page. Their IT moved "
      "SSO to a new Entra app over the weekend. Payroll approval is Thursday.",
      ["login-failure"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "tallis-engineering",
       "ticket": "CS-24415"}, started=75,
      outcome=out(140,
                  "Tallis moved to a new Entra enterprise app that sends the NameID in emailAddress "
                  "format instead of the employee number we match on. Signatures validated; the user "
                  "lookup found no employee.",
                  "Looked like the usual certificate change after an IdP move, but re-importing the "
                  "metadata changed nothing: the signature was valid and the error was 'no employee "
                  "matched NameID'. Mapping Tallis' NameID to the work e-mail attribute in the tenant's "
                  "SSO settings fixed it.",
                  [("ran runbook sso-refresh-tenant-idp-metadata for tallis-engineering", FAIL,
                    "sso-refresh-tenant-idp-metadata"),
                   ("changed Tallis' user matching from NameID=employee number to NameID=work e-mail by "
                    "hand in the tenant SSO settings", OK, None)],
                  "t.brennan"))

page("saml6", "2025-06-10 12:35", "SAMLCERT", "sso-gateway", "SamlResponseValidationFailures",
     "critical", "SAML validation failure ratio 0.97 for tenant copperleaf-credit over 10m",
     ("tenant", "copperleaf-credit"), sym=[], started=10,
     outcome=out(30,
                 "Copperleaf Credit's OneLogin app certificate was replaced by their IT at 12:15.",
                 "One tenant, all logins failing signature validation. Re-imported their metadata.",
                 [("ran runbook sso-refresh-tenant-idp-metadata for copperleaf-credit", OK,
                   "sso-refresh-tenant-idp-metadata")],
                 "k.iyer"))

human("doc6", "2025-06-11 15:30", "DOCHANG", "document-service", "high",
      "Gotenberg pods up but conversions time out",
      "Payslip queue growing since ~14:50. docrender-chromium pods 20/20 Running and Ready. "
      "Conversions in the logs end with 'context deadline exceeded' after 30s, across all tenants. "
      "No deploys to documents today.",
      ["queue-backlog", "timeout"],
      ["gotenberg: convert: context deadline exceeded", "chromium: Target closed"],
      {"source": "oncall", "reporter": "docs-oncall"}, started=40,
      outcome=out(45,
                  "Hung Chromium renderer processes in every pod after ~5,000 conversions each, as in "
                  "{doc5}; the liveness probe still passed.",
                  "Rollout restart of docrender-chromium; the queue was empty in 25 minutes. A "
                  "conversion-count based restart was added to the backlog.",
                  [("ran runbook docrender-restart-chromium-pods", OK, "docrender-restart-chromium-pods")],
                  "a.nakamura"))

page("tmpl3", "2025-06-12 13:50", "TEMPLATE", "document-service", "DocrenderQueueDepthHigh", "critical",
     "render-payslip ready messages above 20000 for 15m", ("scaledobject", "docrender-chromium"),
     sym=["queue-backlog"], started=15,
     outcome=out(90,
                 "Aldergrove Care's new payslip template includes a full leave ledger table (9,000 rows "
                 "for some employees); each render ran into the 30 s conversion timeout and was retried, "
                 "holding most Chromium pods.",
                 "Same alert as {doc5} and {doc6}, so the pods were restarted first; the backlog came "
                 "back within 15 minutes because the cause was one tenant's template. Putting Aldergrove's "
                 "template back to its previous version and parking their jobs cleared it.",
                 [("ran runbook docrender-restart-chromium-pods", FAIL, "docrender-restart-chromium-pods"),
                  ("ran runbook docrender-pin-tenant-template for aldergrove-care", OK,
                   "docrender-pin-tenant-template")],
                 "b.achterberg"))

page("skew3", "2025-06-17 10:20", "SKEW", "sso-gateway", "SamlResponseValidationFailures", "critical",
     "SAML validation failure ratio 0.12 over 10m (5 tenants)", None, sym=["saml-error"], started=11,
     outcome=out(45,
                 "After a host reboot, chronyd on ip-10-40-33-208 started before the network was up and "
                 "gave up; the clock was 40 s ahead by morning.",
                 "Failures spread over several tenants, only from pods on one node. Drained the node and "
                 "fixed chrony, as in {skew2}.",
                 [("ran runbook sso-drain-skewed-node for ip-10-40-33-208", OK, "sso-drain-skewed-node")],
                 "p.osei"))

human("host5", "2025-06-19 12:00", "HOSTKEY", "bank-export", "high",
      "Harborline Bank transfers failing: 'REMOTE HOST IDENTIFICATION HAS CHANGED'",
      "New this quarter: Harborline is the ODFI for 40 employers we moved off Northgate. The 11:30 run "
      "failed at connect with the warning above. Harborline support confirms they migrated their "
      "SFTP cluster on Tuesday.",
      ["sftp-failure"],
      ["@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@",
       "Offending ED25519 key in /etc/bankexport/known_hosts:41"],
      {"source": "oncall", "reporter": "payments-oncall", "bank": "harborline"}, started=30,
      outcome=out(8640,
                  "Harborline migrated its SFTP cluster and with it the host key.",
                  "Pinned Harborline's new key after they confirmed the fingerprint; files went out at "
                  "12:40. Closed days later after Harborline confirmed the ACK files for the run.",
                  [("ran runbook bankexport-pin-bank-hostkey for harborline", OK, "bankexport-pin-bank-hostkey")],
                  "c.mbeki"))

human("smsout4", "2025-06-24 17:05", "SMSOUT", "notifications", "high",
      "Relaytext down? SMS failing everywhere",
      "Relaytext status page red ('major outage, US API'). Our sends get 502s and connection resets. "
      "Failure rate 95%.",
      ["sms-failure", "provider-error"],
      ["relaytext: HTTP 502 Bad Gateway", "read tcp 10.40.8.17:51234->api.relaytext.example:443: connection reset by peer"],
      {"source": "slack", "reporter": "messaging-oncall"}, started=10,
      outcome=out(40,
                  "Relaytext US API outage.",
                  "Moved SMS to Pingwave until Relaytext recovered at 18:50.",
                  [("ran runbook notify-failover-sms-provider", OK, "notify-failover-sms-provider")],
                  "r.lindqvist"))

page("paycpu6", "2025-06-26 05:45", "PAYCPU", "payroll-engine", "PayrollBatchBehindSchedule", "critical",
     "projected batch completion 13:05 is after cutoff 11:00", ("cycle", "2025-06-30-sm"),
     sym=["batch-delay"], started=7,
     outcome=out(95,
                 "Quarter-end cycle with Q2 bonuses; calc workers CPU-bound at 48 (the new month-end "
                 "ceiling was not enough for quarter-end).",
                 "Busy workers, queue 320k, no lock waits. Added workers to 72 after checking tenant-db "
                 "connection headroom; batch finished at 10:15.",
                 [("ran runbook payroll-scale-calc-workers (48 -> 72)", OK, "payroll-scale-calc-workers")],
                 "m.ferreira"))

human("paycpu6r", "2025-06-26 06:30", "PAYCPU", "employee-portal", "high",
      "Customers asking why payroll for Monday isn't ready to approve",
      "Three admins (Silverline Hotels, Beacon Ridge, Quarry Lane) say the portal still shows their "
      "Jun 30 payroll as 'calculating'. Usually it's ready to approve by 6am.",
      ["batch-delay"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-25102"},
      started=45, outcome=None)

# -------------------------------------------------------------------- July
page("tax5", "2025-07-02 07:30", "TAXFEED", "tax-rates", "TaxFeedVersionBehind", "critical",
     "published RateSource version newer than the active one for 11 jurisdictions for 6h",
     ("jurisdiction", "multiple"), sym=["wrong-tax"], started=20,
     outcome=out(95,
                 "The July 1 mid-year changes arrived as 2025.07.0; RateSource re-issued 11 of those "
                 "tables as 2025.07.1 on the evening of Jul 1 (same effective date) and the loader kept "
                 "2025.07.0.",
                 "The new version-lag alert caught it before previews ran. Imported 2025.07.1 for the 11 "
                 "jurisdictions and recomputed the open previews.",
                 [("ran runbook taxrates-force-reload-feed for 11 jurisdictions, version 2025.07.1", OK,
                   "taxrates-force-reload-feed")],
                 "g.halvorsen"))

human("cdc4", "2025-07-08 08:30", "CDCSCHEMA", "reporting-warehouse", "medium",
      "Beacon Ridge dashboards blank after go-live",
      "Beacon Ridge Senior Living (went live Jul 3) can log in and run payroll fine, but every "
      "warehouse report is empty for them. CS checked two other customers, theirs are fine.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "beacon-ridge",
       "ticket": "CS-25390"}, started=80,
      outcome=out(150,
                  "Beacon Ridge was onboarded through the manual path for enterprise tenants, which still "
                  "skipped the publication step added to the normal onboarding in June.",
                  "Added the schema to warehouse_pub and snapshotted it; the manual onboarding path was "
                  "fixed too.",
                  [("ran runbook cdc-add-tenant-schema-and-snapshot for tenant_beacon_ridge", OK,
                    "cdc-add-tenant-schema-and-snapshot")],
                  "v.castellano"))

human("saml7", "2025-07-10 08:05", "SAMLCERT", "employee-portal", "high",
      "Quarry Lane Media staff get an error page after signing in with Google",
      "Quarry Lane's office manager called: since about 7:30 everyone who signs in through Google "
      "lands on our error page. Nothing changed on their side as far as she knows, but their IT "
      "contractor was 'doing some Google admin cleanup' yesterday.",
      ["login-failure"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "quarry-lane-media",
       "ticket": "CS-25455"}, started=40,
      outcome=out(55,
                  "Quarry Lane's IT contractor created a new certificate for their Google Workspace SAML "
                  "app and deleted the old one.",
                  "Signature validation failed for the tenant. Re-imported their IdP metadata.",
                  [("ran runbook sso-refresh-tenant-idp-metadata for quarry-lane-media", OK,
                    "sso-refresh-tenant-idp-metadata")],
                  "k.iyer"))

human("sms429_4", "2025-07-14 15:40", "SMS429", "notifications", "medium",
      "pay-day SMS errors: 20429 from Relaytext",
      "Payslip-ready wave started 15:30, about a third of sends failing with error 20429. Looks like "
      "the send rate went back to 400 with the notifications 3.9 config change last week.",
      ["sms-failure", "rate-limited"],
      ["relaytext: HTTP 429 Too Many Requests (error 20429: account send rate exceeded)"],
      {"source": "slack", "reporter": "messaging-oncall"}, started=10,
      dep=dep("notifications-3.9.0", "3.9.0", 8900),
      outcome=out(5760,
                  "The notifications 3.9.0 release reset the SMS rate limit to its 400 msg/s default, "
                  "above the Relaytext account limit.",
                  "Lowered the send rate and spread the wave that afternoon; closed four days later after "
                  "the default in the config was corrected.",
                  [("ran runbook notify-throttle-sms-rate (400 -> 220 msg/s)", OK, "notify-throttle-sms-rate"),
                   ("changed the default SMS rate in the notifications chart to 220 msg/s", OK, None)],
                  "d.kowalczyk"))

human("paylock5", "2025-07-17 06:05", "PAYLOCK", "payroll-engine", "critical",
      "Payroll run not moving, pgbouncer shows lots of waiting clients",
      "Jul 18 biweekly, 4,900 employers. Progress flat since 05:30 at 58%. Calc pods idle. "
      "pgbouncer SHOW POOLS: cl_waiting 130 on tenantdb_rw. Tried nothing yet.",
      ["batch-delay", "connection-pool-exhausted", "deadline-risk"],
      ["pgbouncer: no more connections allowed (max_client_conn)"],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=35,
      outcome=out(70,
                  "A support engineer's ad-hoc script opened a transaction that locked "
                  "tenant_copperleaf_credit.employees FOR UPDATE and hung on a prompt. Calc jobs for "
                  "Copperleaf waited on it, holding their pgbouncer server connections, so the pool filled "
                  "and the other workers waited for connections.",
                  "Looked like a connection-pool problem, but the pool was full of lock waiters. Ending "
                  "the blocking session freed everything; batch done at 08:20.",
                  [("ran runbook tenantdb-terminate-blocking-sessions", OK,
                    "tenantdb-terminate-blocking-sessions")],
                  "f.oyelaran"))

page("host6", "2025-07-24 11:30", "HOSTKEY", "bank-export", "BankExportTransferFailed", "critical",
     "2 consecutive SFTP upload failures for summit-fcu", ("bank", "summit-fcu"),
     sym=["sftp-failure"], started=9,
     outcome=out(90,
                 "Summit FCU rotated its SFTP host key; the Transfer Family connector for Summit rejected "
                 "the new key (\"host key not in TrustedHostKeys\").",
                 "First host-key change after the move to Transfer Family connectors. The relay-VM "
                 "procedure was tried first and could not work: sftp-relay-01 is gone and connectors do "
                 "not read known_hosts. Updating the connector's TrustedHostKeys after Summit confirmed "
                 "the fingerprint, then resending, fixed it.",
                 [("ran runbook bankexport-pin-bank-hostkey", FAIL, "bankexport-pin-bank-hostkey"),
                  ("ran runbook bankexport-update-connector-hostkey for summit-fcu", OK,
                   "bankexport-update-connector-hostkey")],
                 "s.haddad"))

page("doc7", "2025-07-25 14:55", "DOCHANG", "employee-portal", "PayslipFetchNotReady", "warning",
     "share of payslip requests answered 'not ready' above 30% for 20m", None,
     sym=[], started=22,
     outcome=out(60,
                 "Chromium render pods wedged again (hung renderers); the conversion-count restart from "
                 "{doc6} was still on the backlog.",
                 "Portal answered 'not ready' because no PDFs were produced. Restarted docrender-chromium.",
                 [("ran runbook docrender-restart-chromium-pods", OK, "docrender-restart-chromium-pods")],
                 "b.achterberg"))

human("paycpu7", "2025-07-30 06:10", "PAYCPU", "payroll-engine", "high",
      "July month-end run slow",
      "Run at 45% after 3.5h, calc CPU maxed on all 48 pods, queue 260k. No lock waits that I can "
      "see. Cutoff 11:00 so we're close.",
      ["batch-delay", "cpu-saturation"], [],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=50,
      outcome=out(85,
                  "Month-end cycle with 180 newly onboarded employers; CPU-bound at 48 workers.",
                  "Added workers to 64; finished 10:05.",
                  [("ran runbook payroll-scale-calc-workers (48 -> 64)", OK, "payroll-scale-calc-workers")],
                  "j.whitlock"))

# ------------------------------------------------------------------ August
human("skew4", "2025-08-07 09:45", "SKEW", "employee-portal", "medium",
      "Intermittent 'sign-in failed' across several customers",
      "CS has tickets from Harlow, Meridian, Juniper Ortho and Larkspur since about 8:30. Users say it "
      "fails, then works if they try again a minute later. Not all users affected.",
      ["login-failure", "intermittent"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-26120"}, started=75,
      outcome=out(70,
                  "A node replaced overnight by the autoscaler came from an AMI build in which chronyd "
                  "was masked; its clock ran 55 s ahead and sso-gateway pods on it rejected assertions "
                  "as not yet valid.",
                  "Same failure as {skew3}: intermittent across tenants, pods on one node. Drained the "
                  "node and fixed the AMI build.",
                  [("ran runbook sso-drain-skewed-node for ip-10-40-27-14", OK, "sso-drain-skewed-node")],
                  "t.brennan"))

human("tmpl4", "2025-08-12 13:15", "TEMPLATE", "document-service", "high",
      "render timeouts, nearly all from one tenant",
      "Queue at 18k. Conversion timeouts in docrender-chromium logs are ~95% tenant_silverline_hotels "
      "jobs. Their admin published a new payslip layout at 11:58 per the audit log.",
      ["queue-backlog", "timeout", "pdf-render-failure"],
      ["gotenberg: convert: context deadline exceeded (tenant=silverline-hotels, template v14)"],
      {"source": "oncall", "reporter": "docs-oncall"}, started=35,
      outcome=out(50,
                  "Silverline Hotels' new layout loads four web fonts from a design agency's server that "
                  "answered very slowly; every render waited on them until the timeout.",
                  "One tenant's template, as in {tmpl3}. Put Silverline's template back to v13 and parked "
                  "their jobs; the queue recovered in 20 minutes.",
                  [("ran runbook docrender-pin-tenant-template for silverline-hotels", OK,
                    "docrender-pin-tenant-template")],
                  "a.nakamura"))

human("host7", "2025-08-14 10:50", "HOSTKEY", "bank-export", "high",
      "Prairie State Bank connector test fails",
      "Onboarding Prairie State Bank last week went fine, but today's 10:30 run failed and the "
      "connector test in the console says the server's host key is not trusted. Prairie State's "
      "notice says their 'vendor rotated keys on Aug 13'.",
      ["sftp-failure", "payment-delay"],
      ["TestConnection: FAILED - host key not in TrustedHostKeys (connector c-4f1e9a07b2c3)"],
      {"source": "oncall", "reporter": "payments-oncall", "bank": "prairie-state"}, started=25,
      outcome=out(60,
                  "Prairie State's file-transfer vendor rotated the server host key.",
                  "Updated the connector's trusted host key after confirming the fingerprint with the "
                  "bank; resent the 10:30 run.",
                  [("ran runbook bankexport-update-connector-hostkey for prairie-state", OK,
                    "bankexport-update-connector-hostkey")],
                  "c.mbeki"))

human("sms429_5", "2025-08-27 16:05", "SMS429", "notifications", "medium",
      "SMS failures at 29% during the pay-day wave, we're at 220/s",
      "Failure ratio alert fired at 15:52. Almost all failures are Relaytext 20429 even though we're "
      "sending at 220/s, which was fine last month. Relaytext support mentioned a 10DLC review on "
      "our account last week. Status page green.",
      ["sms-failure", "rate-limited"],
      ["relaytext: HTTP 429 Too Many Requests (error 20429: account send rate exceeded)"],
      {"source": "slack", "reporter": "messaging-oncall"}, started=15,
     outcome=out(40,
                 "Relaytext lowered our account send rate to 150 msg/s while they reviewed our 10DLC "
                 "campaign registration; the pay-day wave at 220 msg/s got 20429.",
                 "Lowered the send rate to 140 msg/s and spread the wave until the registration review "
                 "finished.",
                 [("ran runbook notify-throttle-sms-rate (220 -> 140 msg/s)", OK, "notify-throttle-sms-rate")],
                 "r.lindqvist"))

page("paylock6", "2025-08-28 06:25", "PAYLOCK", "payroll-engine", "PayrollBatchBehindSchedule",
     "critical", "projected batch completion 15:30 is after cutoff 11:00", ("cycle", "2025-08-29-bw"),
     sym=["batch-delay"], started=9,
     outcome=out(100,
                 "A warehouse backfill job opened a REPEATABLE READ transaction on "
                 "tenant_meridian_foods and a tenant migration queued an ALTER TABLE behind it; calc "
                 "queries for Meridian queued behind the ALTER.",
                 "Lock queue behind a DDL again, as in {paylock2}. The runbook ended the backfill "
                 "session and the waiting ALTER; the migration role's new lock timeout should have "
                 "stopped the ALTER from queueing but that role was bypassed by the backfill tooling.",
                 [("ran runbook tenantdb-terminate-blocking-sessions", OK,
                   "tenantdb-terminate-blocking-sessions"),
                  ("made the warehouse backfill use the tenant_migrator role rules", OK, None)],
                 "m.ferreira"))

human("paylock6r", "2025-08-28 07:05", "PAYLOCK", "payroll-engine", "high",
      "Meridian Foods: preview won't finish",
      "Meridian's payroll admin says their Aug 29 preview has been 'calculating' since 5am and "
      "they have 1,800 employees to approve. Asked if it's related to the page.",
      ["batch-delay"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "meridian-foods",
       "ticket": "CS-26604"}, started=60,
      outcome=out(80,
                  "Same event as {paylock6}: Meridian's calc jobs were queued behind a DDL that waited on "
                  "a warehouse backfill transaction.",
                  "Re-page of {paylock6} from customer success. Resolved there; Meridian's preview "
                  "completed at 08:10.",
                  [("no separate action; the blocking sessions were ended under {paylock6}", OK, None)],
                  "m.ferreira", runbook="tenantdb-terminate-blocking-sessions"))

human("cdc5", "2025-08-29 09:20", "CDCSCHEMA", "reporting-warehouse", "low",
      "Fenwick's new West entity missing from reports",
      "Fenwick Builders added a second company (Fenwick Builders West) two weeks ago and ran its "
      "first payroll Aug 22. Their controller says the consolidated labor cost report only shows "
      "the original company.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "fenwick-builders",
       "ticket": "CS-26650"}, started=60,
     outcome=out(120,
                 "Fenwick Builders added a second legal entity, which creates a new tenant schema "
                 "(tenant_fenwick_builders_west) through the entity path; that path did not add the "
                 "schema to warehouse_pub.",
                 "Added the new entity's schema to the publication and snapshotted it.",
                 [("ran runbook cdc-add-tenant-schema-and-snapshot for tenant_fenwick_builders_west", OK,
                   "cdc-add-tenant-schema-and-snapshot")],
                 "v.castellano"))

# --------------------------------------------------------------- September
human("saml8", "2025-09-09 08:30", "SAMLCERT", "employee-portal", "high",
      "Beacon Ridge can't sign in",
      "Beacon Ridge's HR director emailed their account manager: 'none of our staff can get into "
      "Wagewell this morning, the login just errors out'. Need it before Thursday's approval.",
      ["login-failure"], [],
      {"source": "support-escalation", "reporter": "customer-success", "tenant": "beacon-ridge",
       "ticket": "CS-27102"}, started=55,
     outcome=out(40,
                 "Beacon Ridge's ADFS rolled over to its secondary token-signing certificate.",
                 "Re-imported Beacon Ridge's metadata.",
                 [("ran runbook sso-refresh-tenant-idp-metadata for beacon-ridge", OK,
                   "sso-refresh-tenant-idp-metadata")],
                 "p.osei"))

human("tax6", "2025-09-11 10:00", "TAXFEED", "public-api", "medium",
      "Partner reports our Illinois withholding differs from theirs",
      "Ledgerbridge (HRIS partner) opened a case: /v2/payroll-previews returns IL withholding about 1% "
      "higher than their own engine for ~200 employees across 5 shared customers, since Sep 8. They "
      "say Illinois published a correction in August.",
      ["wrong-tax", "calc-variance"], [],
      {"source": "partner-escalation", "reporter": "integrations-team", "ticket": "PARTNER-1187"},
      started=90,
      outcome=out(200,
                  "RateSource published the Illinois correction as 2025.09.1 with the original effective "
                  "date; the version-lag alert did not fire because the IL manifest index was cached for "
                  "24 h on our side, and the loader kept 2025.09.0.",
                  "Partner-visible difference in IL withholding. Imported the corrected IL table, "
                  "recomputed previews, and shortened the manifest cache.",
                  [("ran runbook taxrates-force-reload-feed for IL, version 2025.09.1", OK,
                    "taxrates-force-reload-feed"),
                   ("set the RateSource manifest cache TTL to 1 h", OK, None)],
                  "g.halvorsen"))

human("doc8", "2025-09-12 15:20", "DOCHANG", "employee-portal", "high",
      "Juniper Ortho and others: employees can't open September payslips",
      "Multiple customers since 14:30. Employees click the payslip and get 'your document is being "
      "prepared, check back later'. Admins at Juniper Ortho say it's been like that for an hour. Pay "
      "date is tomorrow.",
      ["missing-data"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-27018"},
      started=70,
      outcome=out(70,
                  "Chromium render pods wedged with hung renderers, as in {doc7}; renders from all "
                  "tenants affected, none dominant.",
                  "Restarted docrender-chromium; payslips available by 16:15.",
                  [("ran runbook docrender-restart-chromium-pods", OK, "docrender-restart-chromium-pods")],
                  "b.achterberg"))

human("sms429_6", "2025-09-25 15:55", "SMS429", "notifications", "medium",
      "Employees didn't get their 'payslip ready' texts",
      "Two customers say many employees got no text today, e-mails arrived fine. Relaytext dashboard "
      "shows a spike of rejected sends at 15:31 (rate limit).",
      ["sms-failure", "rate-limited"], [],
      {"source": "support-escalation", "reporter": "customer-success", "ticket": "CS-27455"},
      started=25,
      outcome=out(45,
                  "The registration review from {sms429_5} ended with our limit back at 250 msg/s, but a "
                  "new customer batch made the wave larger than the spread window allowed; peaks hit "
                  "300 msg/s.",
                  "Lowered the send rate and lengthened the spread for the payslip-ready wave.",
                  [("ran runbook notify-throttle-sms-rate (220 -> 200 msg/s, spread 120m)", OK,
                    "notify-throttle-sms-rate")],
                  "d.kowalczyk"))

# ----------------------------------------------------------------- October
page("smsout5", "2025-10-06 16:40", "SMSOUT", "notifications", "SmsDeliveryFailureRate", "critical",
     "SMS send failure ratio 0.91 over 10m (provider relaytext, us-east-1)", ("provider", "relaytext"),
     sym=["sms-failure"], started=11,
     outcome=out(50,
                 "Relaytext outage (TLS certificate on their API edge expired); all sends failed with "
                 "handshake errors.",
                 "Provider outage. Moved SMS to Pingwave until Relaytext fixed their certificate at "
                 "17:45.",
                 [("ran runbook notify-failover-sms-provider", OK, "notify-failover-sms-provider")],
                 "r.lindqvist"))

human("host8", "2025-10-09 11:10", "HOSTKEY", "bank-export", "critical",
      "First Coastal uploads failing on the connector",
      "10:30 run for First Coastal failed, retry at 10:50 too. Step Functions execution error: host "
      "key not trusted. First Coastal's bulletin says they moved to a new managed file transfer "
      "provider on Oct 8.",
      ["sftp-failure", "payment-delay"],
      ["TestConnection: FAILED - host key not in TrustedHostKeys (connector c-91aa0e3f5d21)"],
      {"source": "oncall", "reporter": "payments-oncall", "bank": "first-coastal"}, started=40,
     outcome=out(55,
                 "First Coastal moved its SFTP endpoint to a new provider with a new host key; the "
                 "connector rejected it.",
                 "Updated the First Coastal connector's trusted host key after the bank confirmed the "
                 "fingerprint and resent the pending files.",
                 [("ran runbook bankexport-update-connector-hostkey for first-coastal", OK,
                   "bankexport-update-connector-hostkey")],
                 "s.haddad"))

human("paylock7", "2025-10-14 06:00", "PAYLOCK", "payroll-engine", "critical",
      "Oct 15 cycle: calc jobs hanging, CPU idle",
      "Batch at 71% and flat since 05:20. Workers near 0 CPU; pg_stat_activity has 40 calc sessions "
      "waiting on Lock/transactionid, all for tenant_harlow_logistics.",
      ["batch-delay", "db-lock-wait"],
      ["wait_event_type=Lock wait_event=transactionid (tenant_harlow_logistics)"],
      {"source": "oncall", "reporter": "payroll-oncall"}, started=40, outcome=None)

human("tax7", "2025-10-21 09:20", "TAXFEED", "payroll-engine", "medium",
      "Variance check red for ~20 employers, all Oregon",
      "Oct 31 previews: Oregon statewide transit tax looks off for 23 employers. Haven't looked at "
      "the feed yet.",
      ["calc-variance"], [],
      {"source": "slack", "reporter": "payroll-ops"}, started=30,
      outcome=out(100,
                  "RateSource re-issued the Oregon transit tax table as 2025.10.1 (same effective date) "
                  "after a rate typo in 2025.10.0; the loader kept 2025.10.0.",
                  "Imported 2025.10.1 for OR and recomputed the Oct 31 previews.",
                  [("ran runbook taxrates-force-reload-feed for OR, version 2025.10.1", OK,
                    "taxrates-force-reload-feed")],
                  "l.moreau"))

# ---------------------------------------------------------------------------
# Contradictions (memories by incident key; each side is one condition)
# ---------------------------------------------------------------------------

CONTRADICTIONS = [
    {"at": "2025-02-17 11:00", "name": "payroll-batch-behind-schedule",
     "topic": "payroll batch behind schedule on a pay-cycle run (PayrollBatchBehindSchedule)",
     "memories": ["paycpu1", "paylock1"],
     "claims": [("paycpu1", "adding calc workers (24 -> 48) brought the batch back on schedule"),
                ("paylock1", "adding calc workers did nothing and used up the tenant-db pool; the workers "
                             "were waiting on a lock held by an idle-in-transaction session, and ending "
                             "that session fixed it")],
     "resolution": {"state": "open"}},
    {"at": "2025-03-03 10:00", "name": "sms-delivery-failures",
     "topic": "SMS delivery failures on notifications (SmsDeliveryFailureRate)",
     "memories": ["sms_out1", "sms429_1"],
     "claims": [("sms_out1", "moving SMS to Pingwave restored delivery"),
                ("sms429_1", "moving SMS to Pingwave made it worse; lowering our send rate fixed it")],
     "resolution": {"state": "open"}},
    {"at": "2025-04-22 15:00", "name": "payroll-batch-behind-schedule",
     "topic": "payroll batch behind schedule on a pay-cycle run (PayrollBatchBehindSchedule)",
     "memories": ["paycpu1", "paylock1", "paycpu2", "paylock2", "paycpu3", "paylock3"],
     "claims": [("paycpu1", "adding calc workers (24 -> 48) brought the batch back on schedule"),
                ("paylock1", "adding calc workers did nothing and used up the tenant-db pool; ending the "
                             "blocking session fixed it"),
                ("paycpu2", "workers at their CPU limit, no lock waits: adding workers fixed it"),
                ("paylock2", "workers idle behind an ALTER TABLE lock queue: ending the blocking sessions "
                             "fixed it"),
                ("paycpu3", "workers at their CPU limit: adding workers fixed it"),
                ("paylock3", "workers idle behind a VACUUM FULL lock: ending the blocking session fixed it")],
     "resolution": {"state": "reconciled",
                    "note": "Both fixes hold, under different conditions. If the calc workers are busy "
                            "(near their CPU limit, jobs completing, calc queue large) the batch is "
                            "CPU-bound: add calc workers (payroll-scale-calc-workers). If the workers are "
                            "idle and pg_stat_activity shows calc queries with wait_event_type Lock behind "
                            "another session (pg_blocking_pids), end the blocking session "
                            "(tenantdb-terminate-blocking-sessions) and do not add workers: more workers "
                            "only add lock waiters and tenant-db connections. The page looks the same in "
                            "both cases; check worker CPU and lock waits first."}},
    {"at": "2025-04-29 10:00", "name": "sms-delivery-failures",
     "topic": "SMS delivery failures on notifications (SmsDeliveryFailureRate)",
     "memories": ["sms_out1", "sms429_1", "smsout2", "sms429_2", "smsout3"],
     "claims": [("sms_out1", "moving SMS to Pingwave restored delivery"),
                ("sms429_1", "moving SMS to Pingwave made it worse; lowering our send rate fixed it"),
                ("smsout2", "lowering the send rate did nothing; moving to Pingwave fixed it"),
                ("sms429_2", "lowering the send rate fixed it"),
                ("smsout3", "moving to Pingwave fixed it")],
     "resolution": {"state": "reconciled",
                    "note": "Both fixes hold, under different conditions. If Relaytext answers HTTP 429 / "
                            "error 20429 (account send rate exceeded) while its status page is green, we "
                            "are over our own account limit: lower the send rate and spread payslip-ready "
                            "texts (notify-throttle-sms-rate); moving to Pingwave makes it worse, its limit "
                            "is 100 msg/s. If Relaytext answers 5xx or times out and its status page shows "
                            "an incident, move SMS to Pingwave (notify-failover-sms-provider); lowering the "
                            "rate does nothing."}},
]

# ---------------------------------------------------------------------------
# Derivation of names, outcomes and truth
# ---------------------------------------------------------------------------

BANNED = [r"\brunbook", r"\brollback", r"\broll(ed)? back\b", r"\brevert", r"\bfail ?over\b",
          r"\bthrottl", r"\bdrain", r"\bcordon", r"\bterminat", r"\breload", r"\bre-?import",
          r"\brecycl", r"instance refresh", r"\bpublication", r"\bsnapshot", r"\bpin(ned|ning)?\b",
          r"\bscal(e|ed|ing)\b", r"\brestart", r"\bforce", r"ignore-etag", r"\bpr-\d{4}"]
BANNED += [re.escape(n) for n in RUNBOOKS]


def check_text(inc):
    spec_text = " ".join([inc["title"], inc["description"]] + inc["symptoms"] + inc["errorSignatures"]
                         + ["%s=%s" % kv for kv in inc["labels"].items()]
                         + ([json.dumps(inc["deployment"])] if inc["deployment"] else []))
    for pat in BANNED:
        m = re.search(pat, spec_text, re.I)
        assert not m, "%s: incident text contains %r" % (inc["key"], m.group(0))


def build():
    incs = sorted(INCIDENTS, key=lambda i: i["at"])
    assert len({i["key"] for i in incs}) == len(incs)
    names = {}
    for n, inc in enumerate(incs, 1):
        inc["name"] = "pr-%04d" % n
        names[inc["key"]] = inc["name"]

    def sub(text):
        return re.sub(r"\{(\w+)\}", lambda m: names[m.group(1)], text)

    for inc in incs:
        o = inc["outcome"]
        inc["outcome_at"] = inc["at"] + timedelta(minutes=o["after"]) if o else None

    # catalog state over time
    rb_applied = {}  # name -> first apply time
    for at, name, _rev in RUNBOOK_APPLIES:
        rb_applied.setdefault(name, T(at))
    migrations = [(T(m["at"]), m) for m in MIGRATIONS]

    fam_members = {}
    for inc in incs:
        fam_members.setdefault(inc["family"], []).append(inc)

    for inc in incs:
        at = inc["at"]
        fam = FAMILIES[inc["family"]]
        earlier = [j for j in fam_members[inc["family"]] if j["at"] < at]
        known = [j for j in earlier if j["outcome_at"] is not None and j["outcome_at"] < at]
        precedents = [j["name"] for j in sorted(known, key=lambda j: j["at"], reverse=True)]
        migs_before = [m for t, m in migrations if t <= at]
        stale = set()
        for m in migs_before:
            stale.update(m["spec"]["impactedRunbooks"])
        rb = fam["runbook"]
        for m in migs_before:
            if m["name"] in fam.get("after", {}):
                rb = fam["after"][m["name"]]
        if rb is not None and not (rb in rb_applied and rb_applied[rb] < at):
            rb = None  # the fix exists only as a hand procedure so far
        assert rb not in stale
        failed = set()
        for j in known:
            for _text, result, arb in j["outcome"]["actions"]:
                if result == FAIL and arb:
                    failed.add(arb)
        unsafe = sorted((stale | failed) - {rb})
        inc["truth"] = {"precedents": precedents, "runbook": rb, "novel": not precedents,
                        "unsafeRunbooks": unsafe}
        inc["_stale"], inc["_failed"] = stale, failed

    events = []
    seq = 0

    def ev(at, obj):
        nonlocal seq
        seq += 1
        events.append((at, seq, obj))

    ev(T("2025-01-01 23:00"), {"at": iso(T("2025-01-01 23:00")), "type": "apply",
                              "object": topology_cm(TOPOLOGY_V1)})
    for at, name, rev in RUNBOOK_APPLIES:
        ev(T(at), {"at": iso(T(at)), "type": "apply", "object": RUNBOOKS[name][rev]})
    for t, m in migrations:
        obj = {"apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": m["name"]},
               "spec": m["spec"]}
        ev(t, {"at": iso(t), "type": "apply", "object": obj})
        if m["topology"]:
            t2 = t + timedelta(minutes=1)
            ev(t2, {"at": iso(t2), "type": "apply", "object": topology_cm(m["topology"])})
    for c in CONTRADICTIONS:
        t = T(c["at"])
        obj = {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": c["name"]},
               "spec": {"topic": c["topic"], "memories": [names[k] for k in c["memories"]],
                        "claims": [{"memory": names[k], "claim": cl} for k, cl in c["claims"]],
                        "resolution": c["resolution"]}}
        for k in c["memories"]:
            j = next(i for i in incs if i["key"] == k)
            assert j["outcome_at"] < t, (c["name"], k)
        ev(t, {"at": iso(t), "type": "apply", "object": obj})

    for inc in incs:
        check_text(inc)
        assert 0 < inc["started"] <= 100
        spec = {"service": inc["service"], "severity": inc["severity"], "title": inc["title"]}
        if inc["description"]:
            spec["description"] = inc["description"]
        spec["symptoms"] = inc["symptoms"]
        if inc["errorSignatures"]:
            spec["errorSignatures"] = inc["errorSignatures"]
        if inc["deployment"]:
            spec["deployment"] = inc["deployment"]
        spec["startedAt"] = iso(inc["at"] - timedelta(minutes=inc["started"]))
        spec["labels"] = inc["labels"]
        ev(inc["at"], {"at": iso(inc["at"]), "type": "incident",
                       "object": {"apiVersion": API, "kind": "Incident",
                                  "metadata": {"name": inc["name"]}, "spec": spec},
                       "truth": inc["truth"]})
        o = inc["outcome"]
        if o:
            if o["runbook"] is _UNSET:
                used = [arb for _t, r, arb in o["actions"] if r == OK and arb]
                rrb = used[-1] if used else None
            else:
                rrb = o["runbook"]
            for _t, _r, arb in o["actions"]:
                assert arb is None or (arb in rb_applied and rb_applied[arb] < inc["outcome_at"]), arb
            ev(inc["outcome_at"], {"at": iso(inc["outcome_at"]), "type": "outcome",
                                   "incident": inc["name"],
                                   "resolution": {"rootCause": sub(o["rootCause"]),
                                                  "summary": sub(o["summary"]),
                                                  "runbook": rrb,
                                                  "actions": [{"action": sub(t), "result": r}
                                                              for t, r, _a in o["actions"]],
                                                  "confirmedBy": o["confirmedBy"]}})
    events.sort(key=lambda e: (e[0], e[1]))
    ats = [e[0] for e in events]
    assert len(set(ats)) == len(ats), "two events share a timestamp"
    return incs, [e[2] for e in events]


def sanity(incs):
    """Design checks: the story holds together."""
    first = {}
    for inc in incs:
        first.setdefault(inc["family"], inc)
    for inc in incs:
        is_first = first[inc["family"]] is inc
        assert inc["truth"]["novel"] == is_first, (inc["key"], inc["truth"])
    # manual-first families: the runbook is applied after the first outcome
    for at, name, rev in RUNBOOK_APPLIES:
        if rev:
            continue
        for fam, f in FAMILIES.items():
            if f["runbook"] == name and T(at) > first[fam]["at"]:
                assert first[fam]["outcome_at"] < T(at), (fam, name)
                assert first[fam]["truth"]["runbook"] is None


def stats(incs, events):
    s = {}
    s["events"] = len(events)
    s["incidents"] = len(incs)
    s["outcomes"] = sum(1 for e in events if e["type"] == "outcome")
    s["pages"] = sum(1 for i in incs if i["style"] == "page")
    s["novel"] = sum(1 for i in incs if i["truth"]["novel"])
    s["novel_null_runbook"] = sum(1 for i in incs if i["truth"]["novel"] and i["truth"]["runbook"] is None)
    s["runbook_null"] = sum(1 for i in incs if i["truth"]["runbook"] is None)
    s["with_unsafe"] = sum(1 for i in incs if i["truth"]["unsafeRunbooks"])
    s["with_failed_unsafe"] = sum(1 for i in incs if i["_failed"] - {i["truth"]["runbook"]})
    s["runbooks"] = len(RUNBOOKS)
    s["runbook_applies"] = len(RUNBOOK_APPLIES)
    s["families"] = {}
    for i in incs:
        s["families"].setdefault(i["family"], []).append(i["name"])
    out_at = {e["incident"]: e["at"] for e in events if e["type"] == "outcome"}
    late = 0
    for i in incs:
        if i["name"] in out_at and any(j["at"] > i["at"] and iso(j["at"]) < out_at[i["name"]]
                                       for j in incs):
            late += 1
    s["outcomes_after_later_incidents"] = late
    s["with_deployment"] = sum(1 for i in incs if i["deployment"])
    s["failed_actions_outcomes"] = sum(
        1 for i in incs if i["outcome"] and any(r == FAIL for _t, r, _a in i["outcome"]["actions"]))
    s["failed_runbook_outcomes"] = sum(
        1 for i in incs if i["outcome"] and any(r == FAIL and a for _t, r, a in i["outcome"]["actions"]))
    return s


def main():
    incs, events = build()
    sanity(incs)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for e in events:
            f.write(json.dumps(e, ensure_ascii=True) + "\n")
    s = stats(incs, events)
    for k, v in s.items():
        if k != "families":
            print("%s: %s" % (k, v))
    for fam, members in s["families"].items():
        print("  %-10s %d  %s" % (fam, len(members), " ".join(m[3:] for m in members)))
    if os.environ.get("SHOW_TRUTH"):
        for i in incs:
            t = i["truth"]
            print(i["name"], i["key"], i["family"], i["style"], "prec=%s" % ",".join(p[3:] for p in t["precedents"]),
                  "rb=%s" % t["runbook"], "unsafe=%s" % ",".join(t["unsafeRunbooks"]))


if __name__ == "__main__":
    main()
