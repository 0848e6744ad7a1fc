#!/usr/bin/env python3
"""Build the Larkspur Pay incident history (a made-up payments platform).

Writes history.jsonl next to this file. Families, trap notes and conditions
live only here and in README.md; the JSONL carries the answer key in `truth`.
"""
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT_PATH = Path(__file__).with_name("history.jsonl")
API = "recall.dev/v1alpha1"
PREFIX = "pay-"

# ---------------------------------------------------------------- topology
TOPOLOGY = {
    "merchant-gateway": ["acquiring-api", "tokenization-vault", "threeds-server"],
    "acquiring-api": ["tokenization-vault", "fraud-scoring", "threeds-server",
                      "acquirer-connector", "idempotency-redis", "ledger-service",
                      "kafka-cluster"],
    "tokenization-vault": [],
    "fraud-scoring": ["kafka-cluster"],
    "threeds-server": ["tokenization-vault"],
    "acquirer-connector": ["tokenization-vault"],
    "idempotency-redis": [],
    "ledger-service": ["ledger-postgres", "kafka-cluster"],
    "ledger-postgres": [],
    "settlement-batch": ["ledger-service", "ledger-postgres", "acquirer-connector",
                         "payout-service"],
    "payout-service": ["ledger-service", "kafka-cluster"],
    "webhook-dispatcher": ["kafka-cluster"],
    "kafka-cluster": [],
}

TEAMS = {
    "merchant-gateway": "payments-core",
    "acquiring-api": "payments-core",
    "tokenization-vault": "security-eng",
    "fraud-scoring": "risk",
    "threeds-server": "cardholder-auth",
    "acquirer-connector": "acquirer-integrations",
    "idempotency-redis": "platform",
    "ledger-service": "ledger",
    "ledger-postgres": "ledger",
    "settlement-batch": "settlement",
    "payout-service": "payouts",
    "webhook-dispatcher": "merchant-integrations",
    "kafka-cluster": "platform",
}


def topology_configmap():
    lines = []
    for svc, deps in TOPOLOGY.items():
        lines.append(f"{svc}: {{dependsOn: [{', '.join(deps)}]}}")
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "service-topology", "namespace": "recall",
                     "labels": {"recall.dev/topology": "true"}},
        "data": {"topology": "\n".join(lines) + "\n"},
    }


# ---------------------------------------------------------------- runbooks
def step(name, image, command, dry_run, rollback, risk, blast, seconds):
    return {"name": name, "image": image, "command": command,
            "dryRunCommand": dry_run, "rollbackCommand": rollback,
            "risk": risk, "blastRadius": blast, "estimatedSeconds": seconds}


KUBECTL = "bitnami/kubectl:1.30.4"
HELM = "alpine/helm:3.15.4"
PSQL = "postgres:16.4"
REDIS = "redis:7.2.5"
KAFKA = "bitnami/kafka:3.7.1"
ROUTECTL = "registry.larkspur.internal/payments/routectl:2.3.1"
HOOKCTL = "registry.larkspur.internal/webhooks/hookctl:1.8.0"
THREEDSCTL = "registry.larkspur.internal/auth/threedsctl:3.0.2"
SETTLECTL = "registry.larkspur.internal/settlement/settlectl:1.12.0"
PAYOUTCTL = "registry.larkspur.internal/payouts/payoutctl:2.4.0"
MLCTL = "registry.larkspur.internal/risk/mlctl:0.19.3"
AWSCLI = "amazon/aws-cli:2.17.20"

LEDGER_IDLE_SQL = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   "WHERE datname = 'ledger' AND state = 'idle in transaction' "
                   "AND now() - state_change > interval '5 minutes'")
LEDGER_IDLE_LIST = ("SELECT pid, usename, application_name, now() - state_change AS idle_for "
                    "FROM pg_stat_activity WHERE datname = 'ledger' "
                    "AND state = 'idle in transaction' ORDER BY idle_for DESC")


def runbook(name, title, services, symptoms, steps, revision=None):
    meta = {"name": name}
    if revision:
        meta["annotations"] = {"larkspur.io/revision": str(revision)}
    return {"apiVersion": API, "kind": "Runbook", "metadata": meta,
            "spec": {"title": title, "services": services, "symptoms": symptoms,
                     "steps": steps}}


RUNBOOKS = {
    "helm-rollback-release": runbook(
        "helm-rollback-release",
        "Roll a service's Helm release back to the previous revision",
        ["acquiring-api", "acquirer-connector", "tokenization-vault", "fraud-scoring",
         "threeds-server", "ledger-service", "payout-service", "webhook-dispatcher"],
        ["approval-rate-drop", "decline-spike", "5xx", "error-rate-spike"],
        [step("rollback-release", HELM,
              ["helm", "rollback", "$(SERVICE)", "0", "--namespace", "$(NAMESPACE)",
               "--wait", "--timeout", "10m"],
              ["helm", "history", "$(SERVICE)", "--namespace", "$(NAMESPACE)", "--max", "5"],
              ["helm", "rollback", "$(SERVICE)", "$(CURRENT_REVISION)", "--namespace",
               "$(NAMESPACE)", "--wait"],
              "medium", "one service in one region; pods replaced with maxUnavailable 10%", 300)]),
    "k8s-rolling-restart": runbook(
        "k8s-rolling-restart",
        "Rolling restart of one deployment to drop stale client connections",
        ["acquiring-api", "acquirer-connector", "tokenization-vault", "threeds-server",
         "webhook-dispatcher", "payout-service"],
        ["stale-connections", "write-errors", "5xx"],
        [step("restart-deployment", KUBECTL,
              ["kubectl", "rollout", "restart", "deployment/$(SERVICE)", "-n", "$(NAMESPACE)"],
              ["kubectl", "get", "deployment", "$(SERVICE)", "-n", "$(NAMESPACE)", "-o", "wide"],
              [], "low", "pods of one deployment, replaced a few at a time", 240),
         step("wait-ready", KUBECTL,
              ["kubectl", "rollout", "status", "deployment/$(SERVICE)", "-n", "$(NAMESPACE)",
               "--timeout", "10m"],
              ["kubectl", "get", "pods", "-n", "$(NAMESPACE)", "-l", "app=$(SERVICE)"],
              [], "low", "read only", 600)]),
    "acquirer-shift-routing": runbook(
        "acquirer-shift-routing",
        "Move card authorization traffic off a degraded acquirer route",
        ["acquirer-connector", "acquiring-api"],
        ["approval-rate-drop", "upstream-timeouts", "acquirer-errors"],
        [step("set-route-weight", ROUTECTL,
              ["routectl", "weight", "set", "--route", "$(ROUTE)", "--weight", "0",
               "--fallback", "$(FALLBACK_ROUTE)", "--reason", "$(INCIDENT)"],
              ["routectl", "weight", "plan", "--route", "$(ROUTE)", "--weight", "0",
               "--fallback", "$(FALLBACK_ROUTE)"],
              ["routectl", "weight", "restore", "--route", "$(ROUTE)"],
              "medium", "all card traffic of one acquirer route; interchange and scheme fees change while moved", 60),
         step("watch-fallback", ROUTECTL,
              ["routectl", "health", "--route", "$(FALLBACK_ROUTE)", "--window", "5m",
               "--min-approval", "0.88"],
              ["routectl", "health", "--route", "$(FALLBACK_ROUTE)", "--window", "1m"],
              [], "low", "read only", 300)]),
    "webhook-scale-consumers": runbook(
        "webhook-scale-consumers",
        "Add webhook dispatcher consumers for a surge of payment events",
        ["webhook-dispatcher", "kafka-cluster"],
        ["consumer-lag", "webhook-delay"],
        [step("scale-dispatcher", KUBECTL,
              ["kubectl", "scale", "deployment/webhook-dispatcher", "-n", "webhooks",
               "--replicas", "$(REPLICAS)"],
              ["kubectl", "get", "deployment", "webhook-dispatcher", "-n", "webhooks"],
              ["kubectl", "scale", "deployment/webhook-dispatcher", "-n", "webhooks",
               "--replicas", "$(PREVIOUS_REPLICAS)"],
              "low", "webhook-dispatcher pods; at most 48 consumers, one per partition", 120)]),
    "ledger-pgbouncer-kill-idle-tx": runbook(
        "ledger-pgbouncer-kill-idle-tx",
        "Free PgBouncer server connections held by idle-in-transaction ledger sessions",
        ["ledger-postgres", "ledger-service", "settlement-batch"],
        ["connection-pool-exhausted", "db-timeouts", "latency-spike"],
        [step("end-idle-transactions", PSQL,
              ["psql", "-h", "ledger-pg-primary.ledger.svc", "-U", "ops_admin", "-d", "ledger",
               "-c", LEDGER_IDLE_SQL],
              ["psql", "-h", "ledger-pg-primary.ledger.svc", "-U", "ops_admin", "-d", "ledger",
               "-c", LEDGER_IDLE_LIST],
              [], "medium", "ledger sessions idle in a transaction for over 5 minutes; their work is rolled back", 30),
         step("reload-pgbouncer", KUBECTL,
              ["kubectl", "exec", "-n", "ledger", "statefulset/pgbouncer", "--", "psql", "-p",
               "6432", "-U", "pgbouncer", "pgbouncer", "-c", "RELOAD"],
              ["kubectl", "exec", "-n", "ledger", "statefulset/pgbouncer", "--", "psql", "-p",
               "6432", "-U", "pgbouncer", "pgbouncer", "-c", "SHOW POOLS"],
              [], "low", "PgBouncer in front of the ledger primary", 20)]),
    "threeds-switch-ds-endpoint": runbook(
        "threeds-switch-ds-endpoint",
        "Send one card scheme's 3DS traffic to the scheme's secondary directory server",
        ["threeds-server"],
        ["ds-timeouts", "threeds-failures", "latency-spike"],
        [step("use-secondary-ds", THREEDSCTL,
              ["threedsctl", "ds", "use", "--scheme", "$(SCHEME)", "--endpoint", "secondary"],
              ["threedsctl", "ds", "probe", "--scheme", "$(SCHEME)", "--endpoint", "secondary"],
              ["threedsctl", "ds", "use", "--scheme", "$(SCHEME)", "--endpoint", "primary"],
              "low", "3DS authentications of one card scheme", 45)]),
    "fraud-pin-model-version": runbook(
        "fraud-pin-model-version",
        "Point the fraud model's champion alias back at the previous version",
        ["fraud-scoring", "acquiring-api"],
        ["decline-spike", "approval-rate-drop", "latency-spike"],
        [step("set-champion-alias", MLCTL,
              ["mlctl", "alias", "set", "fraud-card-auth", "champion", "--version",
               "$(PREVIOUS_VERSION)"],
              ["mlctl", "alias", "diff", "fraud-card-auth", "champion", "--version",
               "$(PREVIOUS_VERSION)"],
              ["mlctl", "alias", "set", "fraud-card-auth", "champion", "--version",
               "$(CURRENT_VERSION)"],
              "medium", "every authorization's fraud score", 30),
         step("reload-scorers", KUBECTL,
              ["kubectl", "rollout", "restart", "deployment/fraud-scoring", "-n", "risk"],
              ["kubectl", "get", "deployment", "fraud-scoring", "-n", "risk"],
              [], "low", "fraud-scoring pods", 180)]),
    "settlement-rerun-batch": runbook(
        "settlement-rerun-batch",
        "Run the daily settlement batch again for one business date",
        ["settlement-batch"],
        ["batch-failed", "settlement-delay"],
        [step("check-inputs", SETTLECTL,
              ["settlectl", "inputs", "check", "--business-date", "$(BUSINESS_DATE)",
               "--require-complete"],
              ["settlectl", "inputs", "list", "--business-date", "$(BUSINESS_DATE)"],
              [], "low", "read only", 60),
         step("run-batch", SETTLECTL,
              ["settlectl", "run", "--business-date", "$(BUSINESS_DATE)", "--resume-from",
               "last-checkpoint"],
              ["settlectl", "run", "--business-date", "$(BUSINESS_DATE)", "--plan"],
              ["settlectl", "void", "--business-date", "$(BUSINESS_DATE)", "--run", "latest"],
              "high", "one business date's settlement for every merchant", 2400)]),
    "idem-redis-expire-orphan-keys": runbook(
        "idem-redis-expire-orphan-keys",
        "Give idempotency keys that were written without a TTL a 24 hour expiry",
        ["idempotency-redis", "acquiring-api"],
        ["redis-oom", "write-errors", "memory-growth"],
        [step("set-missing-ttl", "registry.larkspur.internal/platform/redis-tools:7.2-3",
              ["redis-ttl-sweeper", "--sentinel", "idempotency-redis-sentinel:26379",
               "--master", "idem-master", "--match", "idem:*", "--only-without-ttl",
               "--set-ttl", "86400", "--batch", "1000"],
              ["redis-ttl-sweeper", "--sentinel", "idempotency-redis-sentinel:26379",
               "--master", "idem-master", "--match", "idem:*", "--only-without-ttl",
               "--report-only"],
              [], "low", "keys in idempotency-redis that carry no expiry", 900)]),
    "acquirer-install-client-cert": runbook(
        "acquirer-install-client-cert",
        "Load the renewed mTLS client certificate for an acquirer route",
        ["acquirer-connector"],
        ["tls-handshake-failure", "approval-rate-drop"],
        [step("sync-keystore-secret", KUBECTL,
              ["kubectl", "annotate", "externalsecret", "acq-$(ROUTE)-mtls", "-n", "connector",
               "force-sync=$(TIMESTAMP)", "--overwrite"],
              ["kubectl", "get", "externalsecret", "acq-$(ROUTE)-mtls", "-n", "connector",
               "-o", "jsonpath={.status.conditions}"],
              ["kubectl", "apply", "-f", "backup/acq-$(ROUTE)-mtls.previous.yaml"],
              "medium", "mTLS identity of one acquirer route in one region", 60),
         step("reload-route-pods", KUBECTL,
              ["kubectl", "rollout", "restart", "deployment/acquirer-connector-$(ROUTE)",
               "-n", "connector"],
              ["kubectl", "get", "pods", "-n", "connector", "-l", "route=$(ROUTE)"],
              ["kubectl", "rollout", "undo", "deployment/acquirer-connector-$(ROUTE)",
               "-n", "connector"],
              "medium", "connector pods of one acquirer route", 240)]),
    "webhook-park-endpoint": runbook(
        "webhook-park-endpoint",
        "Move one slow merchant host's webhooks to the parked queue",
        ["webhook-dispatcher"],
        ["consumer-lag", "webhook-delay", "upstream-timeouts"],
        [step("park-host", HOOKCTL,
              ["hookctl", "endpoint", "park", "--host", "$(MERCHANT_HOST)", "--to",
               "webhooks.parked", "--reason", "$(INCIDENT)"],
              ["hookctl", "inflight", "--by-host", "--top", "10"],
              ["hookctl", "endpoint", "unpark", "--host", "$(MERCHANT_HOST)", "--replay-parked"],
              "low", "webhooks of one merchant host, delayed until unparked and replayed", 30)]),
    "webhook-skip-poison-record": runbook(
        "webhook-skip-poison-record",
        "Copy an undeliverable payment event to the DLQ and move the group past it",
        ["webhook-dispatcher", "kafka-cluster"],
        ["crash-loop", "consumer-lag"],
        [step("copy-to-dlq", HOOKCTL,
              ["hookctl", "dlq", "copy", "--topic", "payment-events", "--partition",
               "$(PARTITION)", "--offset", "$(OFFSET)", "--to", "webhooks.dlq"],
              ["hookctl", "dlq", "inspect", "--topic", "payment-events", "--partition",
               "$(PARTITION)", "--offset", "$(OFFSET)"],
              [], "low", "one record", 20),
         step("move-offset", KAFKA,
              ["kafka-consumer-groups.sh", "--bootstrap-server", "kafka-bootstrap.kafka:9093",
               "--group", "webhook-dispatcher", "--topic", "payment-events:$(PARTITION)",
               "--reset-offsets", "--to-offset", "$(NEXT_OFFSET)", "--execute"],
              ["kafka-consumer-groups.sh", "--bootstrap-server", "kafka-bootstrap.kafka:9093",
               "--group", "webhook-dispatcher", "--topic", "payment-events:$(PARTITION)",
               "--reset-offsets", "--to-offset", "$(NEXT_OFFSET)", "--dry-run"],
              ["kafka-consumer-groups.sh", "--bootstrap-server", "kafka-bootstrap.kafka:9093",
               "--group", "webhook-dispatcher", "--topic", "payment-events:$(PARTITION)",
               "--reset-offsets", "--to-offset", "$(OFFSET)", "--execute"],
              "medium", "one partition of the webhook-dispatcher group", 60)]),
    "threeds-refresh-card-ranges": runbook(
        "threeds-refresh-card-ranges",
        "Fetch the full card range list from a directory server (PReq without serial number)",
        ["threeds-server"],
        ["card-not-enrolled", "threeds-failures"],
        [step("full-preq", THREEDSCTL,
              ["threedsctl", "card-ranges", "sync", "--scheme", "$(SCHEME)", "--full"],
              ["threedsctl", "card-ranges", "status", "--scheme", "$(SCHEME)"],
              ["threedsctl", "card-ranges", "restore", "--scheme", "$(SCHEME)", "--snapshot",
               "previous"],
              "low", "card range cache of one scheme", 420)]),
    "payout-sftp-pin-hostkey": runbook(
        "payout-sftp-pin-hostkey",
        "Accept a bank's verified new SFTP host key on sftp-relay and send the file again",
        ["payout-service"],
        ["sftp-failure", "payout-delay"],
        [step("update-known-hosts", "registry.larkspur.internal/payouts/sftp-tools:2.1.0",
              ["hostkey-pin", "--bank", "$(BANK)", "--fingerprint", "$(SHA256_FINGERPRINT)",
               "--configmap", "sftp-relay-known-hosts", "-n", "payouts"],
              ["ssh-keyscan", "-t", "ed25519,rsa", "-p", "22", "$(BANK_SFTP_HOST)"],
              ["hostkey-pin", "--bank", "$(BANK)", "--restore-previous", "--configmap",
               "sftp-relay-known-hosts", "-n", "payouts"],
              "medium", "SFTP trust for one bank", 60),
         step("resend-file", PAYOUTCTL,
              ["payoutctl", "transfer", "retry", "--bank", "$(BANK)", "--file", "$(FILE_ID)"],
              ["payoutctl", "transfer", "status", "--bank", "$(BANK)", "--file", "$(FILE_ID)"],
              [], "medium", "one pain.001 file to one bank", 180)]),
    "idem-redis-grow-memory": runbook(
        "idem-redis-grow-memory",
        "Raise maxmemory on idempotency-redis master and replicas",
        ["idempotency-redis"],
        ["redis-oom", "write-errors"],
        [step("raise-maxmemory", REDIS,
              ["redis-cli", "-h", "$(REDIS_NODE)", "CONFIG", "SET", "maxmemory",
               "$(NEW_MAXMEMORY)"],
              ["redis-cli", "-h", "$(REDIS_NODE)", "INFO", "memory"],
              ["redis-cli", "-h", "$(REDIS_NODE)", "CONFIG", "SET", "maxmemory",
               "$(OLD_MAXMEMORY)"],
              "medium", "one Redis node; run for each replica, then the master", 30),
         step("persist-values", HELM,
              ["helm", "upgrade", "idempotency-redis", "bitnami/redis", "-n", "redis",
               "--reuse-values", "--set", "master.maxmemory=$(NEW_MAXMEMORY)",
               "--set", "replica.maxmemory=$(NEW_MAXMEMORY)"],
              ["helm", "get", "values", "idempotency-redis", "-n", "redis"],
              ["helm", "rollback", "idempotency-redis", "0", "-n", "redis"],
              "medium", "idempotency-redis configuration; pods are not replaced", 120)]),
    "ledger-aurora-end-idle-sessions": runbook(
        "ledger-aurora-end-idle-sessions",
        "End idle-in-transaction sessions on the Aurora ledger writer and cap them per role",
        ["ledger-postgres", "ledger-service", "settlement-batch", "payout-service"],
        ["connection-pool-exhausted", "db-timeouts", "latency-spike"],
        [step("end-idle-transactions", PSQL,
              ["psql", "-h", "$(LEDGER_WRITER_ENDPOINT)", "-U", "ops_admin", "-d", "ledger",
               "-c", LEDGER_IDLE_SQL + " AND usename <> 'rdsadmin'"],
              ["psql", "-h", "$(LEDGER_WRITER_ENDPOINT)", "-U", "ops_admin", "-d", "ledger",
               "-c", LEDGER_IDLE_LIST],
              [], "medium", "ledger sessions idle in a transaction for over 5 minutes; their work is rolled back", 30),
         step("cap-role-idle-time", PSQL,
              ["psql", "-h", "$(LEDGER_WRITER_ENDPOINT)", "-U", "ops_admin", "-d", "ledger",
               "-c", "ALTER ROLE $(ROLE) SET idle_in_transaction_session_timeout = '120s'"],
              ["psql", "-h", "$(LEDGER_WRITER_ENDPOINT)", "-U", "ops_admin", "-d", "ledger",
               "-c", "SELECT rolname, rolconfig FROM pg_roles WHERE rolname = '$(ROLE)'"],
              ["psql", "-h", "$(LEDGER_WRITER_ENDPOINT)", "-U", "ops_admin", "-d", "ledger",
               "-c", "ALTER ROLE $(ROLE) RESET idle_in_transaction_session_timeout"],
              "low", "new sessions of one database role", 10)]),
    "payout-connector-trust-hostkey": runbook(
        "payout-connector-trust-hostkey",
        "Add a bank's verified new host key to its Transfer Family SFTP connector and send the file again",
        ["payout-service"],
        ["sftp-failure", "payout-delay"],
        [step("update-trusted-host-keys", AWSCLI,
              ["aws", "transfer", "update-connector", "--connector-id", "$(CONNECTOR_ID)",
               "--sftp-config", "TrustedHostKeys=$(OLD_HOST_KEY),$(NEW_HOST_KEY)"],
              ["aws", "transfer", "describe-connector", "--connector-id", "$(CONNECTOR_ID)"],
              ["aws", "transfer", "update-connector", "--connector-id", "$(CONNECTOR_ID)",
               "--sftp-config", "TrustedHostKeys=$(OLD_HOST_KEY)"],
              "medium", "SFTP trust for one bank", 60),
         step("resend-file", AWSCLI,
              ["aws", "transfer", "start-file-transfer", "--connector-id", "$(CONNECTOR_ID)",
               "--send-file-paths", "$(OUTBOX_PATH)", "--remote-directory-path", "inbound"],
              ["aws", "transfer", "test-connection", "--connector-id", "$(CONNECTOR_ID)"],
              [], "medium", "one pain.001 file to one bank", 180)]),
}

# Revision 2 of webhook-scale-consumers: refuses to add consumers when one host
# holds most in-flight sends (applied when the backlog contradiction is reconciled).
SCALE_V2 = json.loads(json.dumps(RUNBOOKS["webhook-scale-consumers"]))
SCALE_V2["metadata"]["annotations"] = {"larkspur.io/revision": "2"}
SCALE_V2["spec"]["title"] = ("Add webhook dispatcher consumers for a surge of payment events "
                             "(only when sends are fast and spread across hosts)")
SCALE_V2["spec"]["steps"].insert(0, step(
    "check-host-concentration", HOOKCTL,
    ["hookctl", "inflight", "--by-host", "--fail-if-top-share-above", "0.4",
     "--fail-if-p99-above", "5s"],
    ["hookctl", "inflight", "--by-host", "--top", "10"],
    [], "low", "read only", 15))

# ---------------------------------------------------------------- other kinds
MIGRATIONS = [
    ("2025-04-12T06:00", {
        "apiVersion": API, "kind": "ArchitectureMigration",
        "metadata": {"name": "ledger-postgres-patroni-to-aurora"},
        "spec": {
            "targetService": "ledger-postgres",
            "migrationDate": "2025-04-12",
            "oldArch": "PostgreSQL 15 on EC2 managed by Patroni, PgBouncer (transaction pooling) in Kubernetes in front of the primary",
            "newArch": "Amazon Aurora PostgreSQL 16 with one writer and two readers, clients connect through RDS Proxy; no PgBouncer",
            "impactedRunbooks": ["ledger-pgbouncer-kill-idle-tx"],
            "impactedFixKeywords": ["pgbouncer", "SHOW POOLS", "ledger-pg-primary", "patronictl"],
            "confidenceDeduction": 30,
        }}),
    ("2025-07-19T05:00", {
        "apiVersion": API, "kind": "ArchitectureMigration",
        "metadata": {"name": "payout-sftp-relay-to-transfer-family"},
        "spec": {
            "targetService": "payout-service",
            "migrationDate": "2025-07-19",
            "oldArch": "pain.001 files pushed by an in-cluster OpenSSH relay (sftp-relay) with a fixed egress IP and a known_hosts ConfigMap",
            "newArch": "AWS Transfer Family SFTP connectors, one per bank, with TrustedHostKeys on each connector; sftp-relay removed",
            "impactedRunbooks": ["payout-sftp-pin-hostkey"],
            "impactedFixKeywords": ["sftp-relay", "known_hosts", "ssh-keyscan", "hostkey-pin"],
            "confidenceDeduction": 28,
        }}),
]


def contradiction(name, topic, memories, claims, resolution):
    return {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": name},
            "spec": {"topic": topic, "memories": memories,
                     "claims": [{"memory": mem, "claim": text} for mem, text in claims],
                     "resolution": resolution}}


# Contradictions are filled in after names are known (see build()).
CONTRADICTION_PLAN = [
    # (at, name, topic, memory keys, claims by key, resolution)
    ("2024-12-06T10:00", "webhook-backlog-response", "webhook dispatcher backlog",
     ["F1", "F2"],
     [("F1", "more dispatcher consumers cleared the backlog"),
      ("F2", "more consumers changed nothing; taking the one slow merchant host out of the pool cleared it")],
     {"state": "open"}),
    ("2025-02-10T10:00", "idempotency-redis-memory-full", "idempotency-redis at maxmemory",
     ["D1", "D2", "D3"],
     [("D1", "setting a TTL on keys written without one freed the memory"),
      ("D2", "setting a TTL on keys written without one freed the memory"),
      ("D3", "there were no keys without TTL; only a larger maxmemory helped")],
     {"state": "open"}),
    ("2025-06-16T10:00", "idempotency-redis-memory-full", "idempotency-redis at maxmemory",
     ["D1", "D2", "D3", "D4", "D5"],
     [("D1", "setting a TTL on keys written without one freed the memory"),
      ("D2", "setting a TTL on keys written without one freed the memory"),
      ("D3", "there were no keys without TTL; only a larger maxmemory helped"),
      ("D4", "every key had its TTL; a larger maxmemory fixed it"),
      ("D5", "millions of keys without TTL; giving them one fixed it")],
     {"state": "reconciled",
      "note": ("Both fixes hold under different conditions. When INFO keyspace shows far fewer "
               "expires than keys (IdempotencyKeysWithoutTTL firing), some writer omits EX: give "
               "those keys a TTL and do not raise memory, which only hides the leak. When keys "
               "and expires are equal and traffic grew, raise maxmemory; the TTL sweep finds "
               "nothing.")}),
    ("2025-07-03T10:00", "webhook-backlog-response", "webhook dispatcher backlog",
     ["F1", "F2", "F3", "F4", "F5"],
     [("F1", "more dispatcher consumers cleared the backlog"),
      ("F2", "more consumers changed nothing; taking the one slow merchant host out of the pool cleared it"),
      ("F3", "more consumers cleared a backlog caused by a new marketplace's volume"),
      ("F4", "one host held 87% of in-flight sends; parking it cleared the backlog"),
      ("F5", "one host's 30 s timeouts held every worker slot; parking it cleared the backlog")],
     {"state": "reconciled",
      "note": ("Both fixes hold under different conditions. If sends are fast, spread over many "
               "hosts and dispatcher CPU is high, the input rate grew: add consumers. If one "
               "merchant host holds most in-flight sends and they end in 30 s timeouts while "
               "dispatchers idle, park that host; more consumers only add more blocked workers. "
               "webhook-scale-consumers revision 2 checks this before scaling.")}),
]

CATALOG_PLAN = [
    # (at, runbook name, object override)
    ("2024-09-01T00:00", "helm-rollback-release", None),
    ("2024-09-01T00:00", "k8s-rolling-restart", None),
    ("2024-09-01T00:00", "acquirer-shift-routing", None),
    ("2024-09-01T00:00", "webhook-scale-consumers", None),
    ("2024-09-01T00:00", "ledger-pgbouncer-kill-idle-tx", None),
    ("2024-09-01T00:00", "threeds-switch-ds-endpoint", None),
    ("2024-09-01T00:00", "fraud-pin-model-version", None),
    ("2024-09-01T00:00", "settlement-rerun-batch", None),
    ("2024-10-03T14:00", "idem-redis-expire-orphan-keys", None),
    ("2024-11-20T11:00", "payout-sftp-pin-hostkey", None),
    ("2024-12-06T10:00", "webhook-park-endpoint", None),
    ("2024-12-16T15:00", "threeds-refresh-card-ranges", None),
    ("2024-12-23T09:30", "acquirer-install-client-cert", None),
    ("2025-01-09T13:00", "webhook-skip-poison-record", None),
    ("2025-02-10T10:00", "idem-redis-grow-memory", None),
    ("2025-04-08T07:00", "ledger-aurora-end-idle-sessions", None),
    ("2025-07-03T10:00", "webhook-scale-consumers", SCALE_V2),
    ("2025-07-15T08:00", "payout-connector-trust-hostkey", None),
]


# ---------------------------------------------------------------- incidents
def page(key, family, at, service, alertname, annotation, expr, value, *, severity="high",
         symptom=None, region="eu-west-1", extra_labels=None, deployment=None, started=7,
         runbook=None, extra_unsafe=(), outcome=None, cond=None):
    labels = {"source": "alertmanager", "alertname": alertname, "team": TEAMS[service],
              "region": region, "severity": severity}
    labels.update(extra_labels or {})
    return {"key": key, "family": family, "cond": cond, "at": at, "started": started,
            "service": service, "severity": severity, "style": "page",
            "title": f"[FIRING:1] {alertname} {service}", "description": annotation,
            "symptoms": [symptom] if symptom else [],
            "errors": [f"{expr}  (value: {value})"], "labels": labels,
            "deployment": deployment, "runbook": runbook, "extra_unsafe": list(extra_unsafe),
            "outcome": outcome}


def report(key, family, at, service, title, description, symptoms, errors, *,
           severity="high", region="eu-west-1", reporter=None, deployment=None, started=25,
           runbook=None, extra_unsafe=(), outcome=None, cond=None):
    labels = {"team": TEAMS[service], "region": region}
    if reporter:
        labels["reported-by"] = reporter
    return {"key": key, "family": family, "cond": cond, "at": at, "started": started,
            "service": service, "severity": severity, "style": "report", "title": title,
            "description": description, "symptoms": list(symptoms), "errors": list(errors),
            "labels": labels, "deployment": deployment, "runbook": runbook,
            "extra_unsafe": list(extra_unsafe), "outcome": outcome}


def deploy(ident, revision, minutes):
    return {"id": ident, "revision": revision, "environment": "production",
            "minutesSinceDeploy": minutes}


def outcome(after, root_cause, summary, actions, by, runbook=None):
    """actions: list of (text, result, runbook-or-None)."""
    return {"after": after, "rootCause": root_cause, "summary": summary,
            "actions": actions, "by": by, "runbook": runbook}


APPROVAL = ('sum(rate(acq_auth_responses_total{result="approved"}[10m])) '
            '/ sum(rate(acq_auth_responses_total[10m])) < 0.85')
APPROVAL_NOTE = "Card authorization approval rate below 85% for 10 minutes."


def acq_errors(route):
    return (f'sum(rate(connector_auth_requests_total{{route="{route}",outcome=~"timeout|system_error"}}[5m])) '
            f'/ sum(rate(connector_auth_requests_total{{route="{route}"}}[5m])) > 0.1')


def tls_errors(route):
    return f'sum(rate(connector_tls_handshake_errors_total{{route="{route}"}}[5m])) > 1'


def payout_failures(bank):
    return f'increase(payout_transfer_failures_total{{bank="{bank}"}}[30m]) >= 3'


HANDOFF = "time() - settlement_payout_handoff_acknowledged_timestamp_seconds > 5400"

INCIDENTS = [
    # ------------------------------------------------------------ 2024-09
    page("A1", "ACQ", "2024-09-04T09:41", "acquiring-api", "AuthApprovalRateDrop",
         APPROVAL_NOTE, APPROVAL, "0.738", severity="critical", symptom="approval-rate-drop",
         started=11, runbook="acquirer-shift-routing",
         outcome=outcome(52,
             "Northgate Acquiring had a partial outage at its Frankfurt processing site; about a third of authorizations sent there timed out after 8 s or came back with response code 91.",
             "Approval rate fell to 74% because authorizations on the northgate route timed out or returned 91 (issuer or switch inoperative). Northgate confirmed a site problem at 09:58. Setting the northgate route weight to 0 with corvid as fallback brought approvals back to 93% within six minutes; the weight was restored at 11:45 after northgate's all-clear.",
             [("run runbook acquirer-shift-routing (northgate to corvid)", "succeeded", "acquirer-shift-routing"),
              ("restore northgate weight after their all-clear", "succeeded", None)],
             "mira.okafor", "acquirer-shift-routing")),
    report("H1", "POOL", "2024-09-11T13:20", "ledger-service",
           "Ledger postings slow, capture confirmations backing up",
           "Since about 13:05 the ledger API p99 for POST /postings is above 6 s (normally around 40 ms) and some calls fail at the 10 s client timeout. PgBouncer SHOW POOLS for the ledger database shows all 80 server connections in use and about 350 clients waiting. CPU on the Postgres primary is low, around 15%.",
           ["latency-spike", "connection-pool-exhausted", "db-timeouts"],
           ["org.postgresql.util.PSQLException: ERROR: query_wait_timeout",
            "pgbouncer: ledger/ledger_app cl_active=80 cl_waiting=352 sv_active=80 sv_idle=0 maxwait=41"],
           reporter="jonas.lindqvist", started=15, runbook="ledger-pgbouncer-kill-idle-tx",
           outcome=outcome(38,
               "A month-to-date reconciliation export run from settlement-batch opened one transaction per export page and held it while streaming to S3; about 70 of the 80 PgBouncer server connections sat idle in transaction.",
               "Ledger postings queued behind a PgBouncer pool that was full of sessions idle in transaction, all from application_name=recon-export. Ending those sessions freed the pool and ledger p99 returned to 45 ms within two minutes. The export CronJob was suspended until it was changed to autocommit reads.",
               [("run runbook ledger-pgbouncer-kill-idle-tx", "succeeded", "ledger-pgbouncer-kill-idle-tx"),
                ("suspend the recon-export CronJob", "succeeded", None)],
               "jonas.lindqvist", "ledger-pgbouncer-kill-idle-tx")),
    page("F1", "HOOK", "2024-09-18T19:05", "webhook-dispatcher", "WebhookDeliveryLag",
         "Webhook events are waiting more than 10 minutes for delivery.",
         'max(kafka_consumergroup_group_lag_seconds{group="webhook-dispatcher",topic="payment-events"}) > 600',
         "1425", symptom="webhook-delay", cond="volume", runbook="webhook-scale-consumers",
         outcome=outcome(41,
             "A fashion merchant's flash sale quadrupled payment events; 12 dispatcher pods were CPU-bound and could not keep up. Merchant endpoints answered normally.",
             "payment-events went from about 700 to 2,900 events/s during a flash sale and the webhook-dispatcher group fell 25 minutes behind. Send latency to merchants was normal. Adding consumers (12 to 32 pods) cleared the backlog in 18 minutes.",
             [("run runbook webhook-scale-consumers (12 to 32 replicas)", "succeeded", "webhook-scale-consumers")],
             "priya.haddad", "webhook-scale-consumers")),
    report("D1", "IDEM", "2024-09-26T10:12", "acquiring-api",
           "Intermittent 503s on payment and refund create, 'idempotency store unavailable'",
           "About 3% of POST /v1/payments and POST /v1/refunds have returned 503 with error code idempotency_store_unavailable since 09:50. Merchants' retries mostly succeed on the second or third attempt. The errors come back immediately, Redis latency looks normal.",
           ["5xx", "write-errors", "redis-oom"],
           ["io.lettuce.core.RedisCommandExecutionException: OOM command not allowed when used memory > 'maxmemory'.",
            "IdempotencyFilter: store write failed for key idem:pay:mrc_4Q7xT..., answering 503"],
           severity="critical", reporter="mira.okafor", started=22, cond="no-ttl", runbook=None,
           outcome=outcome(95,
               "Release 2.14 of the refunds path wrote idem:refund:* keys with SET but without EX; about 14 M keys with no expiry built up over three weeks until idempotency-redis reached maxmemory (noeviction).",
               "idempotency-redis hit its 6 GB maxmemory and rejected writes, so acquiring-api answered 503 on creates. INFO keyspace showed 14 M more keys than expiring keys, all idem:refund:*. Raising maxmemory to 7 GB bought time only; a SCAN over idem:refund:* that set a 24 h TTL on keys with TTL -1 brought memory to 52%, and hotfix 2.14.3 writes those keys with EX again.",
               [("raise maxmemory from 6gb to 7gb as a stopgap", "partial", None),
                ("script: SCAN idem:refund:* and EXPIRE 86400 where TTL is -1", "succeeded", None),
                ("hotfix 2.14.3 writes refund keys with EX", "succeeded", None)],
               "tomas.achterberg")),
    # ------------------------------------------------------------ 2024-10
    page("J1", "DS", "2024-10-02T20:47", "threeds-server", "ThreeDSDirectoryServerTimeouts",
         "AReq timeouts to the mastercard directory server above 5%.",
         'sum(rate(threeds_areq_total{scheme="mastercard",outcome="timeout"}[5m])) / sum(rate(threeds_areq_total{scheme="mastercard"}[5m])) > 0.05',
         "0.31", symptom="ds-timeouts", extra_labels={"scheme": "mastercard"},
         runbook="threeds-switch-ds-endpoint",
         outcome=outcome(34,
             "Mastercard's primary EU directory server endpoint was degraded (incident on the scheme's status page); AReq round trips went past our 10 s limit.",
             "31% of Mastercard AReqs timed out, so 3DS authentications ended as unavailable. Moving Mastercard 3DS traffic to the scheme's secondary directory server endpoint brought timeouts to zero; traffic went back to the primary three hours later when Mastercard closed its incident.",
             [("run runbook threeds-switch-ds-endpoint (mastercard, secondary)", "succeeded", "threeds-switch-ds-endpoint")],
             "sanne.dimitrova", "threeds-switch-ds-endpoint")),
    report("B1", "CONNREL", "2024-10-09T14:31", "acquiring-api",
           "Approval rate down about 20 points, lots of response code 30 from both acquirers",
           "Approval rate in eu-west-1 went from 92% to 71% starting at 14:08. The extra declines are ISO response code 30 (format error), which we normally see a handful of times a day, and they come back from both northgate and corvid. Card-present chip transactions from terminals are affected; online card-not-present payments look normal.",
           ["approval-rate-drop", "decline-spike", "acquirer-errors"],
           ["AuthResponse route=northgate rc=30 (FORMAT_ERROR) field=55 stan=004211",
            "AuthResponse route=corvid rc=30 (FORMAT_ERROR) field=55 stan=118020"],
           severity="critical", reporter="mira.okafor", started=23,
           deployment=deploy("acquirer-connector-4.8.0", "4.8.0", 26),
           runbook="helm-rollback-release",
           outcome=outcome(47,
               "acquirer-connector 4.8.0 changed the TLV length encoding of DE 55 (ICC data) for values longer than 127 bytes; both acquirers rejected those chip authorizations as format errors.",
               "Chip authorizations failed with rc 30 on every acquirer after connector 4.8.0. Moving northgate traffic to corvid did nothing because the bad field came from our connector. Rolling acquirer-connector back to 4.7.2 restored the approval rate within 4 minutes; 4.8.1 fixed the BER length encoding.",
               [("run runbook acquirer-shift-routing (northgate to corvid)", "failed", "acquirer-shift-routing"),
                ("run runbook helm-rollback-release for acquirer-connector (to 4.7.2)", "succeeded", "helm-rollback-release")],
               "mira.okafor", "helm-rollback-release")),
    page("N1", "SETTLE", "2024-10-15T05:10", "settlement-batch", "SettlementJobFailed",
         "Job settlement-daily for business date 2024-10-14 failed.",
         'kube_job_status_failed{namespace="settlement",job_name=~"settlement-daily-.*"} > 0', "1",
         symptom="batch-failed", started=4, runbook="settlement-rerun-batch",
         outcome=outcome(185,
             "corvid's daily settlement report arrived truncated at 03:40 (61k of 148k rows); the reconciliation step aborted on an acquirer totals mismatch.",
             "The batch stopped at reconciliation because corvid's report was cut short. A first run again at 05:35 failed the same way because the file had not been replaced. corvid delivered the complete report at 07:05 and the batch ran to completion from its checkpoint; payouts left on time.",
             [("run runbook settlement-rerun-batch before corvid re-sent the file", "failed", "settlement-rerun-batch"),
              ("ask corvid to deliver the complete report (arrived 07:05)", "succeeded", None),
              ("run runbook settlement-rerun-batch", "succeeded", "settlement-rerun-batch")],
             "lea.brennan", "settlement-rerun-batch")),
    page("O1", "MODEL", "2024-10-22T16:02", "fraud-scoring", "FraudDeclineRatioHigh",
         "Share of authorizations blocked by the fraud score above 4%.",
         'sum(rate(fraud_decisions_total{decision="block"}[15m])) / sum(rate(fraud_decisions_total[15m])) > 0.04',
         "0.093", symptom="decline-spike", deployment=deploy("fraud-card-auth-v31", "v31", 38),
         runbook="fraud-pin-model-version",
         outcome=outcome(44,
             "Model v31 was trained on a feature snapshot where merchant_category_risk was null and filled with 1.0; in production the feature is populated, and scores for travel and gaming merchants rose past the block threshold.",
             "Fraud blocks went from 1.6% to 9.3% of authorizations after model v31 became champion. Pointing the champion alias back at v30 and reloading the scorers brought blocks back to 1.7% within ten minutes.",
             [("run runbook fraud-pin-model-version (v30)", "succeeded", "fraud-pin-model-version")],
             "kofi.osei", "fraud-pin-model-version")),
    report("X1", "DST", "2024-10-27T06:35", "settlement-batch",
           "Two settlement runs for business date 2024-10-26, payout preview doubled",
           "The payouts team noticed that this morning's payout preview shows merchant net amounts about twice the usual Saturday totals. settlement-batch has two completed runs for business date 2024-10-26, one started 00:30 and one 01:30 UTC, and both posted to the ledger. Nothing failed and no alert fired.",
           ["duplicate-postings", "settlement-delay"],
           ["settlement-daily-28835430 business_date=2024-10-26 status=Complete postings=412877",
            "settlement-daily-28835490 business_date=2024-10-26 status=Complete postings=412877"],
           reporter="lea.brennan", started=50, runbook=None,
           extra_unsafe=["settlement-rerun-batch"],
           outcome=outcome(170,
               "The settlement-daily CronJob runs at 02:30 Europe/Amsterdam. When clocks went back at 03:00 CEST that wall-clock time happened twice, the job ran twice, and the batch had no guard against a second run for the same business date.",
               "Daylight saving time ended overnight and the CronJob fired twice for business date 2024-10-26, doubling merchant settlement postings. Payouts for the date were held, the second run's postings were reversed by hand with the ledger team, and the schedule moved to 01:15 UTC with a per-business-date lock. Running the batch again would have posted a third copy.",
               [("hold payouts for business date 2024-10-26", "succeeded", None),
                ("post reversing entries for the second run with the ledger team", "succeeded", None),
                ("move schedule to 01:15 UTC and add a business-date lock", "succeeded", None)],
               "lea.brennan")),
    # ------------------------------------------------------------ 2024-11
    page("A2", "ACQ", "2024-11-05T11:18", "acquirer-connector", "AcquirerErrorRatio",
         "Acquirer route corvid returning errors or timeouts on over 10% of requests.",
         acq_errors("corvid"), "0.44", severity="critical", symptom="upstream-timeouts",
         extra_labels={"route": "corvid"}, runbook="acquirer-shift-routing",
         outcome=outcome(63,
             "corvid lost a TLS-terminating load balancer in its primary data centre; about 45% of our connections to it timed out at connect.",
             "Authorizations on the corvid route timed out at connect. Moving corvid's weight to northgate restored approvals in five minutes; corvid replaced the load balancer and the weight was restored at 13:05.",
             [("run runbook acquirer-shift-routing (corvid to northgate)", "succeeded", "acquirer-shift-routing")],
             "daniel.ferreira", "acquirer-shift-routing")),
    report("L1", "HOSTKEY", "2024-11-12T06:40", "payout-service",
           "Morning SEPA payout file to Brenner Landesbank not delivered",
           "The 06:00 payout run built the pain.001 file for Brenner Landesbank (4,912 credit transfers, EUR 18.3M) but the upload step failed three times and the file is still in the outbox. Files for the other banks went out normally. Brenner's cut-off for same-day execution is 10:30 CET.",
           ["sftp-failure", "payout-delay"],
           ["sftp-relay: @@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@",
            "Host key verification failed. Connection closed by h2h-sftp.brennerlb.eu port 22"],
           reporter="nadia.kowalczyk", started=30, runbook=None,
           outcome=outcome(96,
               "Brenner Landesbank moved its host-to-host SFTP service to new servers with a new ed25519 host key, announced in a circular that never reached us; sftp-relay's pinned known_hosts refused the server.",
               "The Brenner payout file could not be uploaded because the bank's SFTP host key had changed. Retrying the job did not help. The payouts lead confirmed the new fingerprint with Brenner's support line, updated the known_hosts ConfigMap of sftp-relay and sent the file again; pain.002 with ACCP arrived at 08:12, well before cut-off.",
               [("retry the upload job", "failed", None),
                ("verify the new fingerprint with the bank by phone and update sftp-relay known_hosts", "succeeded", None),
                ("send the pain.001 file again", "succeeded", None)],
               "nadia.kowalczyk")),
    page("H2", "POOL", "2024-11-19T15:55", "acquiring-api", "CaptureLatencyHigh",
         "Capture requests p99 above 3 seconds.",
         'histogram_quantile(0.99, sum by (le) (rate(http_server_requests_seconds_bucket{uri="/v1/payments/{id}/captures"}[5m]))) > 3',
         "9.7", symptom="latency-spike", runbook="ledger-pgbouncer-kill-idle-tx",
         outcome=outcome(49,
             "The month-to-date fee invoice job in settlement-batch opened transactions and then waited on S3 multipart uploads; 64 sessions idle in transaction held PgBouncer server connections and ledger postings for captures queued.",
             "Captures were slow because each capture posts to the ledger and the ledger's PgBouncer pool was full of idle-in-transaction sessions from the fee invoice job. Ending those sessions brought capture p99 back under 400 ms. The job now commits before each upload.",
             [("run runbook ledger-pgbouncer-kill-idle-tx", "succeeded", "ledger-pgbouncer-kill-idle-tx")],
             "jonas.lindqvist", "ledger-pgbouncer-kill-idle-tx")),
    page("D2", "IDEM", "2024-11-26T03:22", "idempotency-redis", "RedisMemoryNearLimit",
         "Redis used memory above 90% of maxmemory.",
         'redis_memory_used_bytes{service="idempotency-redis"} / redis_memory_max_bytes{service="idempotency-redis"} > 0.9',
         "0.962", symptom="redis-oom", cond="no-ttl", runbook="idem-redis-expire-orphan-keys",
         outcome=outcome(58,
             "The merchant dashboard's payout preview feature, launched in November, wrote idem:preview:* keys with no TTL; 11 M keys without expiry.",
             "idempotency-redis reached 96% of maxmemory at night. INFO keyspace showed 11 M keys without expiry, all idem:preview:*. Giving them a 24 h TTL brought memory down to 48% by the morning. An alert on keys without TTL (IdempotencyKeysWithoutTTL) was added.",
             [("run runbook idem-redis-expire-orphan-keys", "succeeded", "idem-redis-expire-orphan-keys")],
             "tomas.achterberg", "idem-redis-expire-orphan-keys")),
    report("F2", "HOOK", "2024-11-29T17:40", "webhook-dispatcher",
           "Black Friday: webhook backlog growing, merchants missing payment.captured events",
           "Consumer group webhook-dispatcher is 1.9M events behind on payment-events and the oldest undelivered event is 48 minutes old. Dispatcher pods sit at 5% CPU. Almost all of the 600 in-flight HTTP sends are to one host, hooks.tallyshop.io, and they end in 30 s read timeouts. Several merchants have opened tickets about orders stuck in pending.",
           ["consumer-lag", "webhook-delay", "upstream-timeouts"],
           ["deliver failed endpoint=hooks.tallyshop.io/pay/events attempt=1 error=java.net.SocketTimeoutException: Read timed out (30000 ms)",
            "DispatcherPool: all 600 worker slots busy, pausing partition fetch"],
           severity="critical", reporter="priya.haddad", started=35, cond="slow-host",
           runbook=None,
           outcome=outcome(74,
               "One merchant's webhook endpoint slowed to 30 s responses under its own Black Friday load; with no per-host concurrency cap every dispatcher worker ended up waiting on it, so deliveries to all merchants stalled.",
               "The backlog came from worker starvation, not volume. Adding consumers (16 to 48 pods) only added more workers stuck on the same host and the lag kept growing. Disabling hooks.tallyshop.io through the dispatcher admin API, with its events sent to the retry topic, cleared the backlog in 25 minutes; the merchant's events were replayed after their endpoint recovered.",
               [("run runbook webhook-scale-consumers (16 to 48 replicas)", "failed", "webhook-scale-consumers"),
                ("disable hooks.tallyshop.io in the admin API and send its events to the retry topic", "succeeded", None),
                ("replay the merchant's events after their endpoint recovered", "succeeded", None)],
               "priya.haddad")),
    # ------------------------------------------------------------ 2024-12
    report("E1", "READONLY", "2024-12-03T08:15", "acquiring-api",
           "Payment creates failing in bursts after Redis node maintenance",
           "Roughly 8% of payment and refund creates have failed with 503 idempotency_store_unavailable since about 08:00, all from a subset of acquiring-api pods. Memory on the Redis nodes is at 41% of the limit. The platform team drained the node hosting the idempotency-redis master for kernel patching shortly before.",
           ["5xx", "write-errors", "readonly-replica"],
           ["io.lettuce.core.RedisReadOnlyException: READONLY You can't write against a read only replica.",
            "sentinel: +failover-end master idem-master 10.42.7.19 6379"],
           severity="critical", reporter="mira.okafor", started=15, runbook="k8s-rolling-restart",
           outcome=outcome(46,
               "Sentinel promoted a replica when the master's node was drained; acquiring-api pods that had connected before the failover kept writing to the old master, now a replica, because the Lettuce client used a fixed master address.",
               "Writes to idempotency-redis failed with READONLY from pods holding connections to the demoted master. The TTL sweep found nothing to do (memory was at 41%). A rolling restart of acquiring-api made every pod resolve the current master through Sentinel and the errors stopped. A ticket was opened to enable Sentinel topology refresh in the client.",
               [("run runbook idem-redis-expire-orphan-keys", "failed", "idem-redis-expire-orphan-keys"),
                ("run runbook k8s-rolling-restart for acquiring-api", "succeeded", "k8s-rolling-restart")],
               "mira.okafor", "k8s-rolling-restart")),
    report("K1", "RANGE", "2024-12-10T11:05", "threeds-server",
           "Cards from Aurelia Bank's new BIN range fail 3DS as not enrolled",
           "Merchant support escalated that customers of Aurelia Bank, which moved its Mastercard debit cards to a new 8-digit BIN range in November, cannot pay where the merchant requires 3-D Secure. Our 3DS server answers 'not enrolled' for those cards before any AReq is sent, so the issuer's ACS is never contacted. Other issuers look normal.",
           ["threeds-failures", "card-not-enrolled"],
           ["3ds-server: card range lookup miss pan_prefix=52998431 scheme=mastercard -> not enrolled",
            "CardRangeCache scheme=mastercard entries=48211 serialNum=4471"],
           severity="medium", reporter="sanne.dimitrova", started=90, runbook=None,
           outcome=outcome(140,
               "The daily PReq card range sync had failed for nine days: after a DS change we kept sending a stale serialNum and the DS answered with error 203, so new BIN ranges never reached our cache.",
               "Our cached card ranges were nine days old, so new BIN ranges looked not enrolled. Sending Mastercard traffic to the secondary DS changed nothing because the lookup never reaches the DS. A full PReq without serialNum, run by hand, loaded 1,900 new ranges and Aurelia's cards went through 3DS again; the CronJob's serial handling was fixed.",
               [("run runbook threeds-switch-ds-endpoint (mastercard, secondary)", "failed", "threeds-switch-ds-endpoint"),
                ("send a full PReq without serialNum by hand and fix the sync job", "succeeded", None)],
               "sanne.dimitrova")),
    page("C1", "CERT", "2024-12-17T00:24", "acquirer-connector", "AcquirerTLSHandshakeFailures",
         "TLS handshakes to acquirer route halden failing.",
         tls_errors("halden"), "38.2", severity="critical", symptom="tls-handshake-failure",
         extra_labels={"route": "halden"}, started=20, runbook=None,
         outcome=outcome(88,
             "Our mTLS client certificate for Halden Bank Acquiring, issued for one year by Halden's private CA, expired at 00:00 UTC. The renewed certificate had been issued in November but sat unused in Vault.",
             "Every connection to halden failed at the handshake after our client certificate expired. Moving halden's weight to northgate helped only international cards, because Nordic domestic debit cards can only go through halden. Loading the renewed certificate from Vault into the connector keystore secret and replacing the halden pods restored the route at 01:50.",
             [("run runbook acquirer-shift-routing (halden to northgate)", "partial", "acquirer-shift-routing"),
              ("load the renewed client certificate from Vault and replace the halden connector pods", "succeeded", None)],
             "daniel.ferreira")),
    report("G1", "POISON", "2024-12-27T13:12", "webhook-dispatcher",
           "Webhook delays for a subset of merchants, dispatcher pods crash-looping",
           "Merchants whose events land on partition 7 of payment-events have received no webhooks since 12:31; the other 47 partitions are current. Three dispatcher pods have gone into CrashLoopBackOff one after another, each right after being assigned partition 7. Lag on that partition is 85k and rising.",
           ["consumer-lag", "crash-loop", "webhook-delay"],
           ["com.fasterxml.jackson.core.JsonParseException: Invalid UTF-8 middle byte 0x3f at [Source: (byte[]); line: 1, column: 212]",
            "dispatcher-7: uncaught exception in partition handler payment-events-7, consumer closing"],
           reporter="priya.haddad", started=40, runbook=None,
           outcome=outcome(82,
               "A POS integration sent a merchant_reference in Windows-1252; acquiring-api wrote the event unchanged and the dispatcher's JSON parser threw on it. The consumer died before committing, so whichever pod took partition 7 crashed on the same record.",
               "One record on partition 7 could not be parsed and killed every consumer that read it. Adding consumers only moved the crash around. Copying offset 9918234 to webhooks.dlq and moving the group's offset on partition 7 past it cleared the lag in eight minutes; acquiring-api now validates UTF-8 when it writes events.",
               [("run runbook webhook-scale-consumers (16 to 24 replicas)", "failed", "webhook-scale-consumers"),
                ("copy offset 9918234 to webhooks.dlq and move the group past it by hand", "succeeded", None),
                ("validate UTF-8 in acquiring-api before writing events", "succeeded", None)],
               "priya.haddad")),
    # ------------------------------------------------------------ 2025-01
    report("A3", "ACQ", "2025-01-07T10:02", "acquiring-api",
           "Authorizations to Northgate hanging about 8 s, approval rate 78%",
           "From 09:50 the approval rate in eu-west-1 dropped to about 78%. Requests routed to northgate take the full 8 s and come back as timeouts; the few that return quickly often carry response code 91. corvid traffic looks normal. acquirer-connector 4.9.1 went out at 09:18.",
           ["approval-rate-drop", "upstream-timeouts", "acquirer-errors"],
           ["AuthTimeout route=northgate after 8000 ms stan=118734",
            "AuthResponse route=northgate rc=91 (ISSUER_OR_SWITCH_INOPERATIVE)"],
           severity="critical", reporter="kofi.osei", started=12,
           deployment=deploy("acquirer-connector-4.9.1", "4.9.1", 44),
           runbook="acquirer-shift-routing",
           outcome=outcome(58,
               "Northgate's switch went through a database failover; its authorization service timed out or answered 91 for about 70 minutes. Connector 4.9.1 had nothing to do with it.",
               "Approvals dropped because northgate was timing out. The on-call first suspected the connector release from 44 minutes earlier and rolled it back, which changed nothing. Moving northgate's weight to corvid restored the approval rate; 4.9.1 was redeployed afterwards.",
               [("run runbook helm-rollback-release for acquirer-connector (to 4.9.0)", "failed", "helm-rollback-release"),
                ("run runbook acquirer-shift-routing (northgate to corvid)", "succeeded", "acquirer-shift-routing")],
               "kofi.osei", "acquirer-shift-routing")),
    report("F3", "HOOK", "2025-01-14T09:30", "webhook-dispatcher",
           "Webhook lag building after Voltmarkt went live",
           "Voltmarkt moved its whole marketplace onto us this morning and payment-events traffic is up from about 900 to 2,600 events/s. The dispatcher group is 620k behind and losing about 20k per minute. Send latency is normal (p99 340 ms across some 3,000 hosts) and no single host stands out; all 16 dispatcher pods are above 90% CPU.",
           ["consumer-lag", "webhook-delay"],
           ["lag-exporter group=webhook-dispatcher topic=payment-events lag=621344 lag_seconds=412"],
           reporter="aisha.rahman", started=30, cond="volume", runbook="webhook-scale-consumers",
           extra_unsafe=["webhook-park-endpoint"],
           outcome=outcome(52,
               "Sustained volume growth from a new marketplace merchant; the dispatcher was CPU-bound while merchant endpoints answered normally.",
               "Event volume nearly tripled when Voltmarkt went live and 16 dispatcher pods could not keep up. Adding consumers (16 to 40 pods) caught up within 35 minutes; the HPA maximum was raised to 40.",
               [("run runbook webhook-scale-consumers (16 to 40 replicas)", "succeeded", "webhook-scale-consumers")],
               "aisha.rahman", "webhook-scale-consumers")),
    page("B2", "CONNREL", "2025-01-21T14:48", "acquiring-api", "AuthApprovalRateDrop",
         APPROVAL_NOTE, APPROVAL, "0.801", severity="critical", symptom="approval-rate-drop",
         deployment=deploy("acquirer-connector-4.10.0", "4.10.0", 18),
         runbook="helm-rollback-release",
         outcome=outcome(36,
             "acquirer-connector 4.10.0 dropped DE 22 (POS entry mode) for wallet tokens; both acquirers declined Apple Pay and Google Pay authorizations with rc 30 and rc 58.",
             "Wallet payments started failing on both acquirers right after connector 4.10.0. Rolling the connector back to 4.9.1 fixed it within five minutes; the missing field was restored in 4.10.1.",
             [("run runbook helm-rollback-release for acquirer-connector (to 4.9.1)", "succeeded", "helm-rollback-release")],
             "mira.okafor", "helm-rollback-release")),
    report("J2", "DS", "2025-01-28T21:10", "threeds-server",
           "Visa 3DS checkouts spinning, then failing, for several merchants",
           "Support has tickets from five merchants since about 20:50: the 3-D Secure step for Visa cards spins for around 10 seconds and then the payment fails as authentication unavailable. Mastercard checkouts are fine. Our AReq p99 to the Visa directory server went from 400 ms to over 9 s.",
           ["threeds-failures", "ds-timeouts", "latency-spike"],
           ["AReq to DS visa timed out after 10000 ms threeDSServerTransID=7f1c02d4-9b1e-4c55-a1a0-3d2b6c0e9f11",
            "transStatus=U reasonCode=DS_UNREACHABLE scheme=visa"],
           reporter="support-escalations", started=20, runbook="threeds-switch-ds-endpoint",
           outcome=outcome(31,
               "Visa's primary EU directory server endpoint had elevated latency during a Visa-side incident.",
               "Visa AReqs took over 9 s and many timed out. Sending Visa 3DS traffic to the secondary DS endpoint brought p99 back to 450 ms; traffic returned to the primary the next morning.",
               [("run runbook threeds-switch-ds-endpoint (visa, secondary)", "succeeded", "threeds-switch-ds-endpoint")],
               "sanne.dimitrova", "threeds-switch-ds-endpoint")),
    # ------------------------------------------------------------ 2025-02
    report("D3", "IDEM", "2025-02-04T12:00", "idempotency-redis",
           "idempotency-redis close to maxmemory again, OOM errors on writes",
           "used_memory is at 5.8 GB of the 6 GB maxmemory and about 0.5% of SET commands are rejected with OOM. This time INFO keyspace shows keys and expires equal (41.2M each), so every key has a TTL. Payment volume is up about 40% since Voltmarkt and two other marketplaces went live in January.",
           ["redis-oom", "write-errors"],
           ["db0:keys=41203377,expires=41203377,avg_ttl=51840211",
            "OOM command not allowed when used memory > 'maxmemory'."],
           reporter="tomas.achterberg", started=40, cond="growth", runbook=None,
           outcome=outcome(64,
               "Legitimate keyspace growth: 24 h idempotency keys for 40% more traffic no longer fit in 6 GB.",
               "Memory was full of valid keys, all with a TTL. The TTL sweep found no keys without expiry and freed nothing. Raising maxmemory to 12 GB on the replicas and then the master (the pods had a 16 GB limit) and writing it into the Helm values stopped the OOM errors.",
               [("run runbook idem-redis-expire-orphan-keys", "failed", "idem-redis-expire-orphan-keys"),
                ("raise maxmemory to 12gb with CONFIG SET on replicas and master, then in Helm values", "succeeded", None)],
               "tomas.achterberg")),
    page("L2", "HOSTKEY", "2025-02-11T06:25", "payout-service", "PayoutFileTransferFailed",
         "Payout file upload to albion failed 3 times in a row.",
         payout_failures("albion"), "3", symptom="sftp-failure", extra_labels={"bank": "albion"},
         runbook="payout-sftp-pin-hostkey",
         outcome=outcome(55,
             "Albion Clearing Bank rotated its SFTP host key (RSA to ed25519) over the weekend.",
             "The upload to Albion failed because the server presented a host key that sftp-relay did not know. After the fingerprint was confirmed with Albion's operations desk, the new key was added to known_hosts and the file sent again; ACCP at 07:31.",
             [("run runbook payout-sftp-pin-hostkey (albion)", "succeeded", "payout-sftp-pin-hostkey")],
             "nadia.kowalczyk", "payout-sftp-pin-hostkey")),
    report("H3", "POOL", "2025-02-18T02:50", "settlement-batch",
           "Settlement for 2025-02-17 stuck in the posting step",
           "settlement-daily started at 01:15 UTC and has been in the ledger posting step for 90 minutes; it normally finishes in 25. Its logs show posting calls to ledger-service failing after 10 s and being retried. Payout planning needs the batch done by 05:00.",
           ["batch-failed", "db-timeouts", "settlement-delay"],
           ["LedgerClient: POST /postings/batch failed: 504 upstream request timeout (attempt 4/5)",
            "ledger-service: PSQLException: ERROR: query_wait_timeout"],
           reporter="lea.brennan", started=45, runbook="ledger-pgbouncer-kill-idle-tx",
           outcome=outcome(71,
               "The disputes team's chargeback backfill ran 60 workers with autocommit off against the ledger database; each sat idle in transaction between S3 writes and together they held most PgBouncer server connections.",
               "The batch was slow because the ledger could not get database connections. Starting the batch again failed with the same timeouts. Ending the idle-in-transaction sessions of the backfill job freed the pool, and the batch was resumed from its posting checkpoint and finished at 04:20.",
               [("run runbook settlement-rerun-batch", "failed", "settlement-rerun-batch"),
                ("run runbook ledger-pgbouncer-kill-idle-tx", "succeeded", "ledger-pgbouncer-kill-idle-tx"),
                ("resume settlement-daily from its posting checkpoint", "succeeded", None)],
               "lea.brennan", "ledger-pgbouncer-kill-idle-tx")),
    report("O2", "MODEL", "2025-02-25T15:15", "acquiring-api",
           "Approval rate down 6 points, the declines are our own risk blocks",
           "Approval rate has been around 86% instead of 92% since about 14:10. The extra declines are not from issuers or acquirers: they carry decline_reason=risk_block, so they never left our platform. Most are card-not-present payments at airlines and online travel agencies.",
           ["approval-rate-drop", "decline-spike"],
           ["AuthDecision pay_8Hq2Lm decline_reason=risk_block fraud_score=0.912 threshold=0.88 model=fraud-card-auth@v34"],
           reporter="kofi.osei", started=50, deployment=deploy("fraud-card-auth-v34", "v34", 64),
           runbook="fraud-pin-model-version",
           outcome=outcome(39,
               "Model v34 was trained on a window that included a card-testing attack on travel merchants and over-weighted travel MCCs.",
               "Risk blocks doubled for travel merchants after fraud model v34 went live. Pointing the champion alias back at v33 restored the approval rate in ten minutes; v34 was retrained without the attack window.",
               [("run runbook fraud-pin-model-version (v33)", "succeeded", "fraud-pin-model-version")],
               "kofi.osei", "fraud-pin-model-version")),
    # ------------------------------------------------------------ 2025-03
    page("K2", "RANGE", "2025-03-04T18:30", "acquiring-api", "ThreeDSNotEnrolledRatio",
         "More than 8% of 3DS lookups come back not enrolled.",
         'sum(rate(acq_threeds_lookups_total{result="not_enrolled"}[15m])) / sum(rate(acq_threeds_lookups_total[15m])) > 0.08',
         "0.117", symptom="card-not-enrolled", runbook="threeds-refresh-card-ranges",
         outcome=outcome(47,
             "The Visa DS answered the card range sync with a paginated PRes and our job stored only the first page; ranges added by two issuers since the last good sync were missing.",
             "acquiring-api saw an unusual share of not-enrolled answers from the 3DS server. The cause was an incomplete card range cache in threeds-server, not the DS. A full card range fetch for Visa restored the missing ranges and the not-enrolled share fell back to 2%.",
             [("run runbook threeds-refresh-card-ranges (visa)", "succeeded", "threeds-refresh-card-ranges")],
             "sanne.dimitrova", "threeds-refresh-card-ranges")),
    report("C2", "CERT", "2025-03-11T07:05", "acquirer-connector",
           "Northgate refusing our connections from eu-central-1",
           "Since 07:00 UTC every authorization that eu-central-1 sends to northgate fails before any ISO message is exchanged; eu-west-1 pods are fine. Northgate support says their gateway sees our client present a certificate that is out of date. About 30% of German merchants' traffic is served from eu-central-1.",
           ["tls-handshake-failure", "approval-rate-drop"],
           ["javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired",
            "connector route=northgate region=eu-central-1 connect_failures_ratio=1.0"],
           severity="critical", region="eu-central-1", reporter="daniel.ferreira", started=5,
           runbook="acquirer-install-client-cert",
           outcome=outcome(33,
               "The eu-central-1 connector uses its own client certificate for northgate (separate IP allow-list); it expired at 07:00, and its renewal was in Vault but had never been loaded.",
               "Handshakes from eu-central-1 to northgate failed on an expired client certificate. Loading the renewed certificate for the northgate route in eu-central-1 and replacing those pods restored the route in 12 minutes.",
               [("run runbook acquirer-install-client-cert (northgate, eu-central-1)", "succeeded", "acquirer-install-client-cert")],
               "daniel.ferreira", "acquirer-install-client-cert")),
    report("D4", "IDEM", "2025-03-18T19:40", "acquiring-api",
           "Ticket on-sale: idempotency write errors and 503s on payment create",
           "During a large concert ticket on-sale, payment creates peaked at 3.1k/s and around 1% got 503 idempotency_store_unavailable. idempotency-redis memory is at 11.6 of 12 GB. The key count has grown in line with traffic and every key still has its 24 h TTL; the keys-without-TTL alert is quiet.",
           ["5xx", "redis-oom", "write-errors"],
           ["io.lettuce.core.RedisCommandExecutionException: OOM command not allowed when used memory > 'maxmemory'."],
           reporter="mira.okafor", started=15, cond="growth", runbook="idem-redis-grow-memory",
           outcome=outcome(29,
               "Peak traffic from a ticket on-sale on top of January's growth; valid 24 h keys filled 12 GB.",
               "idempotency-redis was full of valid keys during an on-sale peak. Raising maxmemory from 12 to 14 GB on replicas and master stopped the OOM errors in a minute; the node group was then resized so that 20 GB fits.",
               [("run runbook idem-redis-grow-memory (12gb to 14gb)", "succeeded", "idem-redis-grow-memory")],
               "tomas.achterberg", "idem-redis-grow-memory")),
    page("A4", "ACQ", "2025-03-25T10:20", "acquirer-connector", "AcquirerErrorRatio",
         "Acquirer route northgate returning errors or timeouts on over 10% of requests.",
         acq_errors("northgate"), "0.27", severity="critical", symptom="acquirer-errors",
         extra_labels={"route": "northgate"}, runbook="acquirer-shift-routing",
         outcome=outcome(48,
             "Northgate's Amsterdam host pool degraded after a network change on their side; system errors (rc 96) and timeouts.",
             "northgate returned rc 96 or timed out on 27% of authorizations. Moving its weight to corvid restored approvals; the weight was restored at 12:10 when northgate reverted their change.",
             [("run runbook acquirer-shift-routing (northgate to corvid)", "succeeded", "acquirer-shift-routing")],
             "mira.okafor", "acquirer-shift-routing")),
    # ------------------------------------------------------------ 2025-04
    report("X2", "VAULT", "2025-04-01T13:45", "tokenization-vault",
           "Detokenization failing for cards stored before 2023",
           "Since about 13:25 acquirer-connector and threeds-server get errors from tokenization-vault for roughly 12% of stored-card payments. Only tokens created before early 2023 fail; newly tokenized cards work. Recurring subscription charges of several merchants are failing as a result.",
           ["5xx", "decline-spike"],
           ["VaultDecryptError: key check value mismatch for key_id=dek-2021-07 (expected 3F9A21, got 0C77B4)",
            "POST /v2/detokenize token=tok_9fQ2... status=500 latency_ms=4"],
           severity="critical", reporter="ines.moreau", started=20,
           deployment=deploy("tokenization-vault-3.2.0", "3.2.0", 21), runbook="helm-rollback-release",
           outcome=outcome(34,
               "tokenization-vault 3.2.0 changed how data-encryption keys are unwrapped and computed the key check value with the new method for legacy keys wrapped under the 2021 KEK, so legacy tokens could not be decrypted.",
               "Tokens from before 2023 failed to decrypt after vault 3.2.0. Rolling the vault back to 3.1.4 restored detokenization within six minutes; about 41k failed recurring charges were retried by merchants' schedulers.",
               [("run runbook helm-rollback-release for tokenization-vault (to 3.1.4)", "succeeded", "helm-rollback-release")],
               "ines.moreau", "helm-rollback-release")),
    page("E2", "READONLY", "2025-04-08T09:10", "acquiring-api", "IdempotencyStoreErrors",
         "Idempotency store writes failing for over 1% of requests.",
         'sum(rate(idempotency_store_errors_total{error="READONLY"}[5m])) / sum(rate(idempotency_store_ops_total{op="set"}[5m])) > 0.01',
         "0.067", severity="critical", symptom="write-errors", runbook="k8s-rolling-restart",
         outcome=outcome(27,
             "A Sentinel failover during a Redis StatefulSet update; acquiring-api still used the fixed-master client and its pods kept writing to the demoted node.",
             "Idempotency writes failed with READONLY after Redis changed master during a StatefulSet update. A rolling restart of acquiring-api reconnected every pod to the new master. The Sentinel-aware client from the December ticket shipped for payment creates the following week.",
             [("run runbook k8s-rolling-restart for acquiring-api", "succeeded", "k8s-rolling-restart")],
             "aisha.rahman", "k8s-rolling-restart")),
    page("F4", "HOOK", "2025-04-15T17:55", "webhook-dispatcher", "WebhookHostInflightSaturated",
         "One merchant host holds over half of in-flight webhook sends.",
         "max by (host) (webhook_inflight_requests) / scalar(sum(webhook_inflight_requests)) > 0.5",
         "0.87", symptom="webhook-delay", cond="slow-host", runbook="webhook-park-endpoint",
         outcome=outcome(22,
             "A merchant's endpoint behind a misconfigured WAF held requests until our 30 s timeout; the per-host cap added after the Black Friday incident was 400, nearly the whole pool.",
             "One merchant host held 87% of in-flight sends and the rest of the merchants' webhooks queued behind it. Parking that host cleared the backlog in 12 minutes; the per-host cap was lowered to 60.",
             [("run runbook webhook-park-endpoint (pay.kleinhaus-moebel.de)", "succeeded", "webhook-park-endpoint")],
             "priya.haddad", "webhook-park-endpoint")),
    report("H4", "POOL", "2025-04-22T10:35", "ledger-service",
           "Ledger API timing out on database connections after the Aurora move",
           "Ledger API p99 is 9 s and about 4% of postings fail. The service logs time out waiting for a connection through RDS Proxy, and the proxy's DatabaseConnectionsBorrowLatency is high. On the writer, pg_stat_activity shows 180 sessions from application_name=recon-export that are idle in transaction, some for over 40 minutes.",
           ["db-timeouts", "connection-pool-exhausted", "latency-spike"],
           ["HikariPool-1 - Connection is not available, request timed out after 10000ms.",
            "RDS Proxy ledger-proxy: Timed-out waiting to acquire database connection"],
           reporter="jonas.lindqvist", started=20, runbook="ledger-aurora-end-idle-sessions",
           outcome=outcome(44,
               "A new recon-export version went back to one explicit transaction per export page; after the Aurora move every such session pinned an RDS Proxy connection and the writer's connection budget ran out.",
               "Ledger calls waited for database connections held by idle-in-transaction export sessions. The old PgBouncer procedure failed because there is no PgBouncer since the Aurora move. Ending the idle sessions on the Aurora writer and setting a 120 s idle_in_transaction_session_timeout on the recon_export role fixed it.",
               [("run runbook ledger-pgbouncer-kill-idle-tx", "failed", "ledger-pgbouncer-kill-idle-tx"),
                ("run runbook ledger-aurora-end-idle-sessions (role recon_export)", "succeeded", "ledger-aurora-end-idle-sessions")],
               "jonas.lindqvist", "ledger-aurora-end-idle-sessions")),
    page("G2", "POISON", "2025-04-29T04:15", "webhook-dispatcher", "KubePodCrashLooping",
         'Pod webhooks/webhook-dispatcher-5d8b7c9f4-x2lqp (dispatcher) is waiting in "CrashLoopBackOff".',
         'max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff",namespace="webhooks",container="dispatcher"}[5m]) >= 1',
         "1", severity="medium", symptom="crash-loop", runbook="webhook-skip-poison-record",
         outcome=outcome(36,
             "A refund event carried a 1.4 MB metadata blob (a merchant put a base64 PDF in metadata); the dispatcher's payload builder threw on it and the consumer of partition 22 died before committing, every time.",
             "One oversized record on partition 22 crashed whichever dispatcher pod read it. Copying it to webhooks.dlq and moving the group past it ended the crash loop; the event was delivered by hand with the metadata trimmed.",
             [("run runbook webhook-skip-poison-record (partition 22, offset 14402871)", "succeeded", "webhook-skip-poison-record")],
             "aisha.rahman", "webhook-skip-poison-record")),
    # ------------------------------------------------------------ 2025-05
    page("J3", "DS", "2025-05-06T20:20", "acquiring-api", "ThreeDSAuthLatencyHigh",
         "3DS authentication step p99 above 8 seconds.",
         'histogram_quantile(0.99, sum by (le) (rate(acq_threeds_step_duration_seconds_bucket{scheme="visa"}[5m]))) > 8',
         "10.2", symptom="latency-spike", extra_labels={"scheme": "visa"},
         runbook="threeds-switch-ds-endpoint",
         outcome=outcome(43,
             "Packet loss on a transit provider between us and Visa's primary EU directory server.",
             "The 3DS step of card payments took over 10 s for Visa. Replacing the threeds-server pods did nothing; moving Visa 3DS traffic to the secondary DS endpoint brought the step back to 1.1 s p99.",
             [("run runbook k8s-rolling-restart for threeds-server", "failed", "k8s-rolling-restart"),
              ("run runbook threeds-switch-ds-endpoint (visa, secondary)", "succeeded", "threeds-switch-ds-endpoint")],
             "sanne.dimitrova", "threeds-switch-ds-endpoint")),
    report("N2", "SETTLE", "2025-05-13T05:40", "settlement-batch",
           "Settlement run for 12 May stopped at reconciliation, Halden totals off",
           "settlement-daily for business date 2025-05-12 stopped at 04:52 in the reconciliation step. It reports Halden's settlement totals EUR 2.1M below our captured amount for the route, and the report has no rows at all for Dankort co-badged transactions. Halden's file arrived at 03:58, later than usual.",
           ["batch-failed", "settlement-delay"],
           ["ReconcileStep: acquirer=halden expected_net=14882310.44 reported_net=12771902.10 currency=EUR diff over tolerance, aborting"],
           reporter="lea.brennan", started=45, runbook="settlement-rerun-batch",
           outcome=outcome(112,
               "Halden generated its settlement report before one of its clearing sub-files had arrived; it issued a complete report at 06:30.",
               "Reconciliation stopped because Halden's report was incomplete. Once Halden re-issued the complete file at 06:30 the batch was run again from its checkpoint and completed at 07:05.",
               [("ask Halden for a complete report (arrived 06:30)", "succeeded", None),
                ("run runbook settlement-rerun-batch (2025-05-12)", "succeeded", "settlement-rerun-batch")],
               "lea.brennan", "settlement-rerun-batch")),
    page("L3", "HOSTKEY", "2025-05-20T07:30", "settlement-batch", "SettlementPayoutHandoffStuck",
         "Payout instructions for the business day not acknowledged by payout-service.",
         HANDOFF, "7260", symptom="payout-delay", runbook="payout-sftp-pin-hostkey",
         outcome=outcome(50,
             "Brenner Landesbank changed its SFTP host key again when it moved data centres; payout-service could not upload the Brenner file and the settlement handoff waits for every bank's file.",
             "The settlement-to-payout handoff stayed unacknowledged because one bank file, Brenner's, would not upload: the host key had changed. After confirming the fingerprint with Brenner, the key was accepted on sftp-relay and the file sent; the handoff completed at 08:20.",
             [("run runbook payout-sftp-pin-hostkey (brenner)", "succeeded", "payout-sftp-pin-hostkey")],
             "nadia.kowalczyk", "payout-sftp-pin-hostkey")),
    report("B3", "CONNREL", "2025-05-27T11:50", "acquiring-api",
           "Mastercard declines via corvid jumped after connector release",
           "Since 11:20 Mastercard authorizations routed to corvid are declined about 25% of the time, mostly with response codes 30 and 12. Visa on corvid and everything on northgate look normal. Connector 5.1.0 went out at 11:15.",
           ["approval-rate-drop", "decline-spike"],
           ["AuthResponse route=corvid brand=mastercard rc=30 (FORMAT_ERROR) field=48",
            "AuthResponse route=corvid brand=mastercard rc=12 (INVALID_TRANSACTION)"],
           reporter="kofi.osei", started=25, deployment=deploy("acquirer-connector-5.1.0", "5.1.0", 35),
           runbook="helm-rollback-release",
           outcome=outcome(28,
               "Connector 5.1.0 added DE 48 subelement 42 (security level indicator) with a wrong length for Mastercard non-3DS transactions.",
               "Mastercard authorizations on corvid were rejected after connector 5.1.0 because of a malformed DE 48 subelement. Rolling the connector back to 5.0.3 fixed it; 5.1.1 corrected the length.",
               [("run runbook helm-rollback-release for acquirer-connector (to 5.0.3)", "succeeded", "helm-rollback-release")],
               "kofi.osei", "helm-rollback-release")),
    # ------------------------------------------------------------ 2025-06
    page("O3", "MODEL", "2025-06-03T14:05", "fraud-scoring", "FraudScoringLatencyHigh",
         "Fraud score p99 above the 150 ms budget.",
         "histogram_quantile(0.99, sum by (le) (rate(fraud_score_duration_seconds_bucket[5m]))) > 0.15",
         "0.41", symptom="latency-spike", deployment=deploy("fraud-card-auth-v36", "v36", 25),
         runbook="fraud-pin-model-version",
         outcome=outcome(31,
             "Model v36 added 180 sequence features computed at request time; scoring p99 rose to 410 ms and acquiring-api fell back to its static rules, which block more.",
             "Fraud scoring became too slow after model v36, so authorizations fell back to static rules. Pointing the champion alias back at v35 brought p99 to 60 ms; v36 was reworked to precompute the sequence features.",
             [("run runbook fraud-pin-model-version (v35)", "succeeded", "fraud-pin-model-version")],
             "kofi.osei", "fraud-pin-model-version")),
    page("D5", "IDEM", "2025-06-10T08:45", "idempotency-redis", "IdempotencyKeysWithoutTTL",
         "More than 1M idempotency keys have no expiry.",
         'sum(redis_db_keys{service="idempotency-redis"}) - sum(redis_db_keys_expiring{service="idempotency-redis"}) > 1e6',
         "3.4e+06", severity="medium", symptom="memory-growth", cond="no-ttl",
         runbook="idem-redis-expire-orphan-keys", extra_unsafe=["idem-redis-grow-memory"],
         outcome=outcome(42,
             "The new payment-links feature in acquiring-api wrote idem:plink:* keys without EX.",
             "3.4 M keys without expiry, all idem:plink:*, had built up in four days. Setting a 24 h TTL on them stopped the growth; payment-links 1.0.2 writes the keys with EX.",
             [("run runbook idem-redis-expire-orphan-keys", "succeeded", "idem-redis-expire-orphan-keys")],
             "aisha.rahman", "idem-redis-expire-orphan-keys")),
    report("K3", "RANGE", "2025-06-13T22:10", "threeds-server",
           "Lithuanian issuer's cards get 'card range not found' on 3DS",
           "Customers of Vilnia Bankas report that 3-D Secure fails straight away when paying at several of our merchants. The 3DS server answers before contacting the directory server, saying the card's range is unknown. The issuer told one merchant that it re-issued cards under a new BIN at the start of June.",
           ["threeds-failures", "card-not-enrolled"],
           ["threeds: no card range for pan_prefix=41735520 scheme=visa messageVersion=2.2.0 -> not enrolled"],
           severity="medium", reporter="support-escalations", started=80,
           runbook="threeds-refresh-card-ranges",
           outcome=outcome(38,
               "The card range sync job had been OOM-killed for six days after Visa's range list grew; new ranges were missing from the cache.",
               "Our Visa card range cache was six days old. A full card range fetch loaded the new Vilnia ranges; the job's memory limit was raised from 512 Mi to 2 Gi.",
               [("run runbook threeds-refresh-card-ranges (visa)", "succeeded", "threeds-refresh-card-ranges")],
               "sanne.dimitrova", "threeds-refresh-card-ranges")),
    report("A5", "ACQ", "2025-06-17T12:25", "merchant-gateway",
           "Merchants report card payments hanging, then failing with processing_error",
           "Since around 12:05 several merchants report card payments taking 8 to 10 seconds and then failing with processing_error. merchant-gateway shows 504s on POST /v1/payments at about 2% and rising. In acquirer-connector, connections to corvid time out at connect; northgate and halden look healthy.",
           ["5xx", "latency-spike", "upstream-timeouts"],
           ["upstream_response_time=10.001 status=504 method=POST path=/v1/payments",
            "connector route=corvid io.netty.channel.ConnectTimeoutException: connection timed out after 3000 ms"],
           severity="critical", reporter="support-escalations", started=20,
           runbook="acquirer-shift-routing",
           outcome=outcome(41,
               "corvid had a network outage at its primary site.",
               "Payments routed to corvid hung at connect and merchants saw 504s. Moving corvid's weight to northgate cleared the errors in four minutes; corvid recovered at 14:30 and the weight was restored.",
               [("run runbook acquirer-shift-routing (corvid to northgate)", "succeeded", "acquirer-shift-routing")],
               "daniel.ferreira", "acquirer-shift-routing")),
    # ------------------------------------------------------------ 2025-07
    report("F5", "HOOK", "2025-07-01T03:30", "kafka-cluster",
           "Kafka lag alert for the webhook-dispatcher group, brokers look healthy",
           "The platform on-call was paged for consumer group webhook-dispatcher being 1.2M messages behind on payment-events. Broker CPU, disk and request latency are normal, and other consumer groups on the same topic are current. The dispatcher pods are nearly idle, yet every worker slot is taken by sends to api.norrfjall-outdoor.se that end in 30 s timeouts.",
           ["consumer-lag", "webhook-delay", "upstream-timeouts"],
           ["deliver failed endpoint=api.norrfjall-outdoor.se/webhooks/psp attempt=1 error=Read timed out (30000 ms)"],
           reporter="tomas.achterberg", started=25, cond="slow-host", runbook="webhook-park-endpoint",
           outcome=outcome(33,
               "The merchant's endpoint degraded during their own database migration; the per-host cap was not applied to retries, so one host again took the whole pool.",
               "The Kafka alert was about the webhook dispatcher, not the brokers: one merchant host held every worker. Parking api.norrfjall-outdoor.se cleared the 1.2M backlog in 20 minutes; the cap now applies to retries too.",
               [("run runbook webhook-park-endpoint (api.norrfjall-outdoor.se)", "succeeded", "webhook-park-endpoint")],
               "priya.haddad", "webhook-park-endpoint")),
    page("C3", "CERT", "2025-07-08T00:40", "acquirer-connector", "AcquirerTLSHandshakeFailures",
         "TLS handshakes to acquirer route corvid failing.",
         tls_errors("corvid"), "51.7", severity="critical", symptom="tls-handshake-failure",
         extra_labels={"route": "corvid"}, runbook="acquirer-install-client-cert",
         outcome=outcome(35,
             "Our corvid client certificate expired at midnight; the renewed one was in Vault but not loaded.",
             "Handshakes to corvid failed on an expired client certificate. Loading the renewed certificate and replacing the corvid connector pods restored the route at 01:10. A check for client certificates expiring within 30 days was added.",
             [("run runbook acquirer-install-client-cert (corvid)", "succeeded", "acquirer-install-client-cert")],
             "daniel.ferreira", "acquirer-install-client-cert")),
    page("H5", "POOL", "2025-07-15T13:30", "payout-service", "PayoutLedgerReserveTimeouts",
         "Ledger fund reservations for payouts timing out above 2%.",
         'sum(rate(payout_ledger_reserve_total{outcome="timeout"}[10m])) / sum(rate(payout_ledger_reserve_total[10m])) > 0.02',
         "0.18", symptom="db-timeouts", runbook="ledger-aurora-end-idle-sessions",
         outcome=outcome(37,
             "Finance's ad-hoc query tool connected to the ledger writer with a role that had no idle timeout; about 150 of its sessions were idle in transaction.",
             "Payout reservations timed out because ledger-service could not get connections through RDS Proxy. Ending the idle-in-transaction sessions of the finance_bi role and capping its idle time fixed it; the tool was pointed at a reader.",
             [("run runbook ledger-aurora-end-idle-sessions (role finance_bi)", "succeeded", "ledger-aurora-end-idle-sessions")],
             "jonas.lindqvist", "ledger-aurora-end-idle-sessions")),
    page("X3", "KDISK", "2025-07-22T04:05", "kafka-cluster", "KafkaBrokerDiskAlmostFull",
         "Broker kafka-2 log volume above 90% used.",
         'kubelet_volume_stats_used_bytes{namespace="kafka",persistentvolumeclaim="data-kafka-2"} / kubelet_volume_stats_capacity_bytes{namespace="kafka",persistentvolumeclaim="data-kafka-2"} > 0.9',
         "0.93", severity="critical", symptom="disk-full", runbook=None,
         outcome=outcome(95,
             "A debug topic, payment-events-mirror-debug, created during a June investigation with retention.ms=-1, had grown to 2.1 TB and most of its partition leaders sat on kafka-2.",
             "kafka-2's volume filled with a forgotten debug topic that never deleted data. Its retention was set to one hour, the topic was deleted after sign-off, and the broker volumes were grown from 4 to 6 TiB.",
             [("set retention.ms=3600000 on payment-events-mirror-debug, then delete it", "succeeded", None),
              ("expand kafka data PVCs from 4 to 6 TiB", "succeeded", None)],
             "aisha.rahman")),
    report("E3", "READONLY", "2025-07-29T08:55", "acquiring-api",
           "Refund creates failing after Redis node pool upgrade",
           "Since about 08:40 roughly 5% of POST /v1/refunds fail with 503; payment creates are fine. The errors come only from the refund handlers on pods that have been up since yesterday. The platform team upgraded the idempotency-redis node pool this morning.",
           ["5xx", "write-errors", "readonly-replica"],
           ["RefundIdempotencyStore: RedisReadOnlyException: READONLY You can't write against a read only replica."],
           reporter="mira.okafor", started=15, runbook="k8s-rolling-restart",
           outcome=outcome(26,
               "Payment creates got the Sentinel-aware client in April, but refunds use a separate, older client bean that keeps the master address; it kept writing to the node demoted during the node pool upgrade.",
               "Refund writes failed with READONLY after a Sentinel failover during the node pool upgrade. A rolling restart of acquiring-api fixed it; the refund client was moved to the Sentinel-aware bean.",
               [("run runbook k8s-rolling-restart for acquiring-api", "succeeded", "k8s-rolling-restart")],
               "mira.okafor", "k8s-rolling-restart")),
    # ------------------------------------------------------------ 2025-08
    report("L4", "HOSTKEY", "2025-08-05T06:50", "payout-service",
           "Brenner payout file refused at connection time by the new transfer connector",
           "This morning's Brenner Landesbank pain.001 (3,870 transfers) did not leave. Since the move to AWS Transfer Family, files go out through an SFTP connector; StartFileTransfer ends FAILED and the connector's CloudWatch log says the server's host key does not match. Albion and the other banks went through.",
           ["sftp-failure", "payout-delay"],
           ["connector c-0a12f3b9e4 h2h-sftp.brennerlb.eu: host key mismatch, connection closed",
            "FileTransferResult status=FAILED failureCode=CONNECTION_FAILED"],
           reporter="nadia.kowalczyk", started=30, runbook="payout-connector-trust-hostkey",
           outcome=outcome(47,
               "Brenner rotated its host key again; the connector's TrustedHostKeys still held only the old key.",
               "The Brenner connector refused the bank's new host key. The old sftp-relay procedure failed because the relay was removed in July. Adding the verified key to the connector's TrustedHostKeys and starting the transfer again got ACCP at 08:02.",
               [("run runbook payout-sftp-pin-hostkey (brenner)", "failed", "payout-sftp-pin-hostkey"),
                ("run runbook payout-connector-trust-hostkey (brenner)", "succeeded", "payout-connector-trust-hostkey")],
               "nadia.kowalczyk", "payout-connector-trust-hostkey")),
    report("J4", "DS", "2025-08-12T19:25", "threeds-server",
           "Mastercard 3DS attempts ending as authentication unavailable",
           "From 19:05 roughly a quarter of Mastercard 3DS attempts end with transStatus U after waiting the full 10 seconds for the directory server. Visa is unaffected. Merchants that require 3DS see checkout failures for Mastercard.",
           ["ds-timeouts", "threeds-failures"],
           ["AReq to DS mastercard timed out after 10000 ms",
            "DS mastercard primary: TLS handshake took 6.8 s"],
           reporter="sanne.dimitrova", started=20, runbook="threeds-switch-ds-endpoint",
           outcome=outcome(29,
               "Mastercard's primary EU directory server was overloaded during a scheme-side maintenance.",
               "Mastercard AReqs timed out at the primary DS. Moving Mastercard 3DS traffic to the secondary endpoint brought timeouts to zero; it went back the next morning.",
               [("run runbook threeds-switch-ds-endpoint (mastercard, secondary)", "succeeded", "threeds-switch-ds-endpoint")],
               "sanne.dimitrova", "threeds-switch-ds-endpoint")),
    page("N3", "SETTLE", "2025-08-19T04:10", "settlement-batch", "AcquirerSettlementReportMissing",
         "Settlement report from corvid not received by 04:00 UTC.",
         'time() - max(settlement_report_received_timestamp_seconds{acquirer="corvid"}) > 90000',
         "97380", symptom="settlement-delay", extra_labels={"acquirer": "corvid"},
         runbook="settlement-rerun-batch",
         outcome=outcome(155,
             "corvid's own report generation overran; the file arrived at 06:20.",
             "The corvid settlement file was late, so the batch waited and then failed its input check. After the file arrived at 06:20 the batch was run again and completed at 06:50.",
             [("run runbook settlement-rerun-batch (2025-08-18)", "succeeded", "settlement-rerun-batch")],
             "lea.brennan", "settlement-rerun-batch")),
    page("B4", "CONNREL", "2025-08-26T14:20", "acquiring-api", "AuthApprovalRateDrop",
         APPROVAL_NOTE, APPROVAL, "0.776", severity="critical", symptom="approval-rate-drop",
         deployment=deploy("acquirer-connector-5.4.0", "5.4.0", 22), runbook="helm-rollback-release",
         outcome=outcome(48,
             "Connector 5.4.0's new ISO 8583 bitmap builder left out DE 14 (expiry date) for tokenized recurring payments.",
             "Recurring card-on-file authorizations were declined as format errors on both acquirers after connector 5.4.0. Rolling it back to 5.3.2 restored approvals; 5.4.1 fixed the bitmap.",
             [("run runbook helm-rollback-release for acquirer-connector (to 5.3.2)", "succeeded", "helm-rollback-release")],
             "mira.okafor", "helm-rollback-release")),
    page("B4r", "CONNREL", "2025-08-26T14:29", "acquirer-connector", "AcquirerFormatErrors",
         "Acquirers answering with format errors (rc 30) on over 1% of requests.",
         'sum(rate(connector_auth_responses_total{rc="30"}[5m])) / sum(rate(connector_auth_responses_total[5m])) > 0.01',
         "0.142", severity="high", symptom="acquirer-errors",
         deployment=deploy("acquirer-connector-5.4.0", "5.4.0", 31), runbook="helm-rollback-release",
         outcome=outcome(45,
             "Same connector 5.4.0 regression as {B4}.",
             "Re-page of {B4}: the format errors came from the connector 5.4.0 release and stopped when it was rolled back.",
             [("closed together with {B4}", "succeeded", None)],
             "mira.okafor", "helm-rollback-release")),
    # ------------------------------------------------------------ 2025-09
    report("G3", "POISON", "2025-09-02T10:40", "webhook-dispatcher",
           "One partition of payment-events not moving, a dispatcher keeps dying",
           "Lag is stuck on partition 11 only (58k and growing) while the rest of the group is current. The pod that owns partition 11 exits with an exception within seconds of starting, then the partition moves to another pod and that one dies too.",
           ["consumer-lag", "crash-loop"],
           ['PayloadBuilder: java.lang.NumberFormatException: For input string: "1.2e+21" (field amount_minor)',
            "Consumer payment-events-11 stopped on unhandled exception, offset 20771045 not committed"],
           reporter="priya.haddad", started=30, runbook="webhook-skip-poison-record",
           outcome=outcome(31,
               "The new FX service wrote amount_minor as a float in scientific notation for one cross-currency refund; the dispatcher could not build the payload.",
               "A single malformed event on partition 11 crashed each consumer that read it. Moving it to the DLQ and the group past it cleared the lag; the FX service was fixed to write integers.",
               [("run runbook webhook-skip-poison-record (partition 11, offset 20771045)", "succeeded", "webhook-skip-poison-record")],
               "priya.haddad", "webhook-skip-poison-record")),
    report("F6", "HOOK", "2025-09-09T13:15", "webhook-dispatcher",
           "Webhook backlog after a merchant's bulk refund run",
           "A large merchant issued 1.1M refunds through the batch API in 40 minutes and the webhook group is 900k events behind. Sends to merchant endpoints complete in normal time (p99 about 300 ms) and are spread over many hosts; the merchant's own host is under 5% of in-flight. The 32 dispatcher pods are CPU-bound.",
           ["consumer-lag", "webhook-delay"],
           ["lag-exporter group=webhook-dispatcher topic=payment-events lag=903117 lag_seconds=655"],
           reporter="aisha.rahman", started=25, cond="volume", runbook="webhook-scale-consumers",
           extra_unsafe=["webhook-park-endpoint"],
           outcome=outcome(46,
               "A one-off bulk refund run produced a burst of refund events; merchant endpoints were healthy and the dispatchers were CPU-bound.",
               "The backlog came from volume alone. The revised consumer procedure confirmed that no host dominated and took the dispatcher from 32 to 48 pods; the backlog was gone in 28 minutes.",
               [("run runbook webhook-scale-consumers (32 to 48 replicas)", "succeeded", "webhook-scale-consumers")],
               "aisha.rahman", "webhook-scale-consumers")),
    page("A6", "ACQ", "2025-09-16T09:05", "acquiring-api", "AuthApprovalRateDrop",
         APPROVAL_NOTE, APPROVAL, "0.690", severity="critical", symptom="approval-rate-drop",
         region="eu-central-1", runbook="acquirer-shift-routing",
         outcome=outcome(44,
             "Northgate's Frankfurt site lost its link to the Visa network; Visa authorizations on northgate came back with rc 91.",
             "Visa approvals on the northgate route collapsed in eu-central-1. Moving northgate's weight to corvid restored the approval rate; the weight was restored at 11:30.",
             [("run runbook acquirer-shift-routing (northgate to corvid, eu-central-1)", "succeeded", "acquirer-shift-routing")],
             "kofi.osei", "acquirer-shift-routing")),
    page("H6", "POOL", "2025-09-23T16:45", "ledger-service", "LedgerDBConnectionBorrowTimeouts",
         "Ledger connections through RDS Proxy timing out on borrow.",
         'sum(rate(hikaricp_connections_timeout_total{pool="ledger"}[5m])) > 0.5', "7.3",
         severity="critical", symptom="connection-pool-exhausted",
         runbook="ledger-aurora-end-idle-sessions",
         outcome=outcome(32,
             "The quarter-end revenue report in settlement-batch ran under a new role without the idle timeout; 120 of its sessions were idle in transaction.",
             "Ledger connections ran out because of idle-in-transaction sessions from the quarter-end report. Ending them and capping the role's idle time fixed it; the role template now carries the timeout.",
             [("run runbook ledger-aurora-end-idle-sessions (role settlement_qe)", "succeeded", "ledger-aurora-end-idle-sessions")],
             "jonas.lindqvist", "ledger-aurora-end-idle-sessions")),
    report("C4", "CERT", "2025-09-30T00:15", "acquiring-api",
           "Nordic debit cards declining everywhere since midnight",
           "Since 00:00 UTC every authorization for Danish and Norwegian domestic debit cards fails with a system error; international cards are fine. These cards can only go through halden. acquirer-connector's halden pods log the connection being closed during setup.",
           ["approval-rate-drop", "tls-handshake-failure"],
           ["route=halden javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate"],
           severity="critical", reporter="kofi.osei", started=12, runbook="acquirer-install-client-cert",
           outcome=outcome(40,
               "Halden stopped accepting client certificates from its old issuing CA at midnight; our certificate from the new CA had been issued in August but was not loaded.",
               "Halden's gateway rejected our client certificate once the old CA was retired. Loading the certificate issued under the new CA and replacing the halden connector pods restored Nordic debit authorizations at 00:52.",
               [("run runbook acquirer-install-client-cert (halden)", "succeeded", "acquirer-install-client-cert")],
               "daniel.ferreira", "acquirer-install-client-cert")),
    page("C4r", "CERT", "2025-09-30T00:22", "acquirer-connector", "AcquirerTLSHandshakeFailures",
         "TLS handshakes to acquirer route halden failing.",
         tls_errors("halden"), "44.9", severity="critical", symptom="tls-handshake-failure",
         extra_labels={"route": "halden"}, runbook="acquirer-install-client-cert",
         outcome=outcome(36,
             "Same halden client certificate problem as {C4}.",
             "Re-page of {C4}: handshake failures to halden stopped once the certificate from Halden's new CA was loaded.",
             [("closed together with {C4}", "succeeded", None)],
             "daniel.ferreira", "acquirer-install-client-cert")),
    # ------------------------------------------------------------ 2025-10
    page("L5", "HOSTKEY", "2025-10-07T06:20", "payout-service", "PayoutFileTransferFailed",
         "Payout file upload to albion failed 3 times in a row.",
         payout_failures("albion"), "3", symptom="sftp-failure", extra_labels={"bank": "albion"},
         runbook="payout-connector-trust-hostkey",
         outcome=outcome(62,
             "Albion rotated its SFTP host key as part of an annual key change; the Transfer Family connector did not have the new key.",
             "The Albion connector refused the bank's new host key. After Albion's operations desk confirmed the fingerprint, the key was added to the connector's TrustedHostKeys and the file sent; ACCP at 07:40.",
             [("run runbook payout-connector-trust-hostkey (albion)", "succeeded", "payout-connector-trust-hostkey")],
             "nadia.kowalczyk", "payout-connector-trust-hostkey")),
    page("L5r", "HOSTKEY", "2025-10-07T06:35", "settlement-batch", "SettlementPayoutHandoffStuck",
         "Payout instructions for the business day not acknowledged by payout-service.",
         HANDOFF, "5580", symptom="payout-delay", runbook="payout-connector-trust-hostkey",
         outcome=None),
    report("X4", "MERCHTLS", "2025-10-10T11:30", "webhook-dispatcher",
           "Merchant says no webhooks have arrived since last night",
           "Fjordline Ferries' integration team says no payment webhooks have reached them since about 23:00 yesterday, although payments succeed. Our delivery log shows every attempt to their endpoint failing in under 50 ms and going to retry. Other merchants are fine and the group has no lag.",
           ["webhook-delay", "tls-handshake-failure"],
           ["deliver failed endpoint=hooks.fjordline.no/psp attempt=9 error=SSLHandshakeException: PKIX path validation failed: validity check failed (NotAfter 2025-10-09T23:00:00Z)"],
           severity="medium", reporter="support-escalations", started=60, runbook=None,
           outcome=outcome(150,
               "The merchant's own endpoint certificate had expired; their renewal automation had failed silently.",
               "Deliveries to one merchant failed because the certificate on their endpoint had expired. Nothing on our side was broken: the merchant renewed their certificate at 13:40 and the 41k retried events were replayed.",
               [("tell the merchant about their expired endpoint certificate", "succeeded", None),
                ("replay the merchant's retried events after their fix", "succeeded", None)],
               "priya.haddad")),
    page("G4", "POISON", "2025-10-14T02:50", "webhook-dispatcher", "WebhookPartitionLagStuck",
         "Consumer lag on one payment-events partition has not dropped for 15 minutes.",
         '(kafka_consumergroup_lag{group="webhook-dispatcher",topic="payment-events"} > 1000) and (delta(kafka_consumergroup_lag{group="webhook-dispatcher",topic="payment-events"}[15m]) >= 0)',
         "31240", symptom="consumer-lag", extra_labels={"partition": "3"},
         runbook="webhook-skip-poison-record",
         outcome=outcome(40,
             "A chargeback event from a new disputes integration had a null merchant_id; the dispatcher threw while looking up the endpoint and never committed the offset.",
             "Partition 3 stopped moving because one event without merchant_id crashed its consumer over and over. Moving it to the DLQ and the group past it cleared the lag; the disputes integration now rejects such events.",
             [("run runbook webhook-skip-poison-record (partition 3, offset 18850122)", "succeeded", "webhook-skip-poison-record")],
             "aisha.rahman", "webhook-skip-poison-record")),
    page("O4", "MODEL", "2025-10-16T15:40", "acquiring-api", "RiskDeclineShareHigh",
         "Authorizations declined by risk_block above 5% of attempts.",
         'sum(rate(acq_auth_decisions_total{decline_reason="risk_block"}[15m])) / sum(rate(acq_auth_decisions_total[15m])) > 0.05',
         "0.081", symptom="decline-spike", deployment=deploy("fraud-card-auth-v41", "v41", 50),
         runbook="fraud-pin-model-version",
         outcome=outcome(33,
             "Model v41 used a new device fingerprint feature that the mobile SDK of several merchants does not send; the missing value pushed scores up.",
             "Risk blocks reached 8% of attempts after model v41. Pointing the champion alias back at v40 restored normal approval rates; v41 was retrained to handle the missing feature.",
             [("run runbook fraud-pin-model-version (v40)", "succeeded", "fraud-pin-model-version")],
             "kofi.osei", "fraud-pin-model-version")),
    page("K4", "RANGE", "2025-10-20T07:15", "threeds-server", "ThreeDSCardRangeCacheStale",
         "Card range cache for visa not updated in over 36 hours.",
         'time() - threeds_card_range_last_sync_success_timestamp_seconds{scheme="visa"} > 129600',
         "271800", severity="medium", extra_labels={"scheme": "visa"},
         runbook="threeds-refresh-card-ranges",
         outcome=outcome(39,
             "After threeds-server moved namespaces the sync job lost the egress NetworkPolicy to the Visa DS, so each PReq timed out.",
             "The Visa card range cache had not been updated for three days. The egress policy was added back and a full card range fetch brought the cache up to date.",
             [("add the missing egress NetworkPolicy for the sync job", "succeeded", None),
              ("run runbook threeds-refresh-card-ranges (visa)", "succeeded", "threeds-refresh-card-ranges")],
             "sanne.dimitrova", "threeds-refresh-card-ranges")),
    page("E4", "READONLY", "2025-10-23T10:05", "idempotency-redis", "RedisReadonlyErrors",
         "Redis replica rejecting writes with READONLY errors.",
         'sum(rate(redis_errors_total{service="idempotency-redis",err="READONLY"}[5m])) > 5',
         "212", severity="high", symptom="readonly-replica", runbook="k8s-rolling-restart",
         outcome=outcome(28,
             "A Sentinel failover after a replica's node was preempted; the payment-links worker in acquiring-api had its own Redis client without Sentinel topology refresh and kept writing to the old master.",
             "Writes arrived at a replica after Redis changed master. They all came from acquiring-api's payment-links worker, which still used a fixed master address. A rolling restart of acquiring-api stopped them; the worker was moved to the shared client.",
             [("run runbook k8s-rolling-restart for acquiring-api", "succeeded", "k8s-rolling-restart")],
             "aisha.rahman", "k8s-rolling-restart")),
    report("N4", "SETTLE", "2025-10-24T09:10", "payout-service",
           "No payout instructions for business date 23 October",
           "payout-service has built no pain.001 files for business date 2025-10-23; the instruction table is still empty at 09:00 although runs normally start at 07:00. settlement-daily never handed over, and its log shows it waiting for northgate's settlement report, which is not in the inbound bucket.",
           ["payout-delay", "settlement-delay"],
           ["settlement-daily: waiting for input acquirer=northgate business_date=2025-10-23 (attempt 14)"],
           reporter="nadia.kowalczyk", started=40, runbook="settlement-rerun-batch",
           outcome=outcome(120,
               "Northgate's settlement report was delayed by a problem in their file delivery platform; it arrived at 10:15.",
               "Payouts waited on settlement, which waited on northgate's late report. Once the report arrived the batch was run again, handed over at 10:55, and payouts left before the 12:00 cut-off.",
               [("run runbook settlement-rerun-batch (2025-10-23)", "succeeded", "settlement-rerun-batch")],
               "lea.brennan", "settlement-rerun-batch")),
    report("J5", "DS", "2025-10-28T20:40", "acquiring-api",
           "3-D Secure step slow for Visa cards, checkouts timing out",
           "Since about 20:25 the 3DS part of Visa card payments takes 9 to 10 seconds and many end as authentication unavailable; Mastercard is unaffected. threeds-server shows AReq p99 to the Visa DS above 9 s while its own CPU and pools look normal.",
           ["latency-spike", "ds-timeouts", "threeds-failures"],
           ["acq-threeds: step=authenticate scheme=visa duration_ms=10012 transStatus=U"],
           reporter="mira.okafor", started=15, runbook="threeds-switch-ds-endpoint",
           outcome=None),
]

# ---------------------------------------------------------------- checks on text
BANNED_WORDS = [r"\brunbook", r"\broll(ed|ing)?[ -]?back\b", r"\brevert", r"\bshift", r"\bpark",
                r"\bpin(ned|ning)?\b", r"\bre-?run", r"\bexpire\b", r"\binstall", r"\bskip",
                r"\brefresh", r"\btrust", r"\bgrow\b", r"\bterminat", r"\bkill\b",
                r"\bswitch", r"\bscal(e|ed|ing)\b", r"\brestart", r"\borphan", r"\bpoison"]


def check_text(inc):
    texts = [inc["title"], inc["description"], *inc["symptoms"], *inc["errors"],
             *[str(v) for v in inc["labels"].values()]]
    if inc["deployment"]:
        texts += [str(v) for v in inc["deployment"].values()]
    blob = " ".join(texts).lower()
    for rb_name in RUNBOOKS:
        assert rb_name not in blob, (inc["key"], rb_name)
    for pattern in BANNED_WORDS:
        assert not re.search(pattern, blob), (inc["key"], pattern)
    for tag in inc["symptoms"]:
        assert re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", tag), tag
    if inc["style"] == "page":
        assert len(inc["description"].split()) <= 16, inc["key"]
        assert len(inc["symptoms"]) <= 1 and len(inc["errors"]) == 1
    else:
        assert 2 <= len(inc["symptoms"]) <= 4 and 1 <= len(inc["errors"]) <= 3, inc["key"]


# ---------------------------------------------------------------- build
def ts(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def fmt(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build():
    incidents = sorted(INCIDENTS, key=lambda inc: ts(inc["at"]))
    names = {}
    for number, inc in enumerate(incidents, 1):
        names[inc["key"]] = f"{PREFIX}{number:04d}"
        check_text(inc)

    events = []  # (moment, order, payload)
    catalog_at = {}
    for at, name, override in CATALOG_PLAN:
        obj = override or RUNBOOKS[name]
        events.append((ts(at), 0, {"at": fmt(ts(at)), "type": "apply", "object": obj}))
        catalog_at.setdefault(name, ts(at))
    stale_at = {}
    for at, obj in MIGRATIONS:
        events.append((ts(at), 0, {"at": fmt(ts(at)), "type": "apply", "object": obj}))
        for rb_name in obj["spec"]["impactedRunbooks"]:
            stale_at[rb_name] = ts(at)
    for at, cname, topic, keys, claims, resolution in CONTRADICTION_PLAN:
        obj = contradiction(cname, topic, [names[key] for key in keys],
                            [(names[key], text) for key, text in claims], resolution)
        events.append((ts(at), 0, {"at": fmt(ts(at)), "type": "apply", "object": obj}))
    topo_at = datetime(2024, 9, 1, tzinfo=timezone.utc)
    events.append((topo_at, -1, {"at": fmt(topo_at), "type": "apply",
                                 "object": topology_configmap()}))

    resolved = {}  # key -> (moment, failed runbooks)
    for inc in incidents:
        if inc["outcome"]:
            moment = ts(inc["at"]) + timedelta(minutes=inc["outcome"]["after"])
            failed = {rb for _, result, rb in inc["outcome"]["actions"] if rb and result == "failed"}
            resolved[inc["key"]] = (moment, failed)

    report_rows = []
    for inc in incidents:
        moment = ts(inc["at"])
        in_catalog = {name for name, added in catalog_at.items() if added <= moment}
        earlier = [other for other in incidents
                   if other["family"] == inc["family"] and ts(other["at"]) < moment
                   and other["key"] in resolved and resolved[other["key"]][0] < moment]
        earlier.sort(key=lambda other: ts(other["at"]), reverse=True)
        precedents = [names[other["key"]] for other in earlier]
        unsafe = {name for name, when in stale_at.items() if when <= moment}
        for other in earlier:
            unsafe |= resolved[other["key"]][1]
        unsafe |= set(inc["extra_unsafe"])
        unsafe.discard(inc["runbook"])
        unsafe &= in_catalog
        if inc["runbook"] is not None:
            assert inc["runbook"] in in_catalog, (inc["key"], inc["runbook"])
            assert inc["runbook"] not in {n for n, w in stale_at.items() if w <= moment}
        spec = {"service": inc["service"], "severity": inc["severity"], "title": inc["title"],
                "description": inc["description"], "symptoms": inc["symptoms"],
                "errorSignatures": inc["errors"],
                "startedAt": fmt(moment - timedelta(minutes=inc["started"])),
                "labels": inc["labels"]}
        if inc["deployment"]:
            spec["deployment"] = inc["deployment"]
        truth = {"precedents": precedents, "runbook": inc["runbook"],
                 "novel": not precedents, "unsafeRunbooks": sorted(unsafe)}
        events.append((moment, 1, {"at": fmt(moment), "type": "incident",
                                   "object": {"apiVersion": API, "kind": "Incident",
                                              "metadata": {"name": names[inc["key"]]},
                                              "spec": spec},
                                   "truth": truth}))
        if inc["outcome"]:
            out = inc["outcome"]

            def fill(text):
                return re.sub(r"\{(\w+)\}", lambda match: names[match.group(1)], text)

            resolution = {"rootCause": fill(out["rootCause"]), "summary": fill(out["summary"])}
            if out["runbook"]:
                resolution["runbook"] = out["runbook"]
            resolution["actions"] = [{"action": fill(text), "result": result}
                                     for text, result, _ in out["actions"]]
            resolution["confirmedBy"] = out["by"]
            out_moment = resolved[inc["key"]][0]
            events.append((out_moment, 2, {"at": fmt(out_moment), "type": "outcome",
                                           "incident": names[inc["key"]],
                                           "resolution": resolution}))
        report_rows.append((names[inc["key"]], inc["key"], inc["family"], inc["service"],
                            inc["style"], inc["labels"].get("region"), truth))

    events.sort(key=lambda item: (item[0], item[1]))
    with OUT_PATH.open("w", encoding="utf-8") as handle:
        for _, _, payload in events:
            handle.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return report_rows, len(events)


def main():
    rows, count = build()
    print(f"wrote {count} events to {OUT_PATH.name}")
    for name, key, family, service, style, region, truth in rows:
        print(f"{name} {key:5s} {family:9s} {service:19s} {style:6s} {region:12s} "
              f"rb={truth['runbook']} prec={','.join(p[-4:] for p in truth['precedents'])} "
              f"unsafe={','.join(truth['unsafeRunbooks'])}")


if __name__ == "__main__":
    main()
