#!/usr/bin/env python3
"""Build the Corrida dispatch-platform incident history (history.jsonl).

Everything here is invented. The script holds the catalog (topology, runbooks,
migrations, contradictions) and the incidents with their outcomes as
structured data, derives each incident's answer key from the families
declared below, checks the key against the catalog, and writes JSONL sorted by
time.

Answer-key rules (see README.md):
  precedents      earlier incidents of the same family whose outcome is recorded
                  before this incident's `at`, most recent first
  novel           precedents == []
  runbook         declared per incident (checked: must be in the catalog then)
  unsafeRunbooks  runbooks made stale by a migration applied before `at`, plus
                  runbooks whose action `failed` in an earlier incident of the
                  same family whose outcome is recorded before `at`; never the
                  incident's own right runbook; only runbooks in the catalog
"""
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).with_name("history.jsonl")
API = "recall.dev/v1alpha1"


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


EVENTS = []  # (datetime, order, event)
_seq = [0]


def emit(at, ev):
    _seq[0] += 1
    EVENTS.append((at, _seq[0], ev))


# --------------------------------------------------------------------------
# Topology
# --------------------------------------------------------------------------
TOPOLOGY = """\
edge-gateway: {dependsOn: [rider-api, merchant-api, driver-ingest, mesh-control]}
rider-api: {dependsOn: [pricing-engine, dispatch-matcher, maps-eta, payments-adapter, notification-svc, orders-db, redis-geo, mesh-control]}
merchant-api: {dependsOn: [dispatch-matcher, notification-svc, orders-db, kafka-events, mesh-control]}
driver-ingest: {dependsOn: [kafka-events, redis-geo, mesh-control]}
dispatch-matcher: {dependsOn: [kafka-events, redis-geo, maps-eta, pricing-engine, notification-svc, orders-db, mesh-control]}
pricing-engine: {dependsOn: [redis-geo, kafka-events, maps-eta, mesh-control]}
payments-adapter: {dependsOn: [orders-db, kafka-events, mesh-control]}
maps-eta: {dependsOn: [mesh-control]}
notification-svc: {dependsOn: [kafka-events, mesh-control]}
orders-db: {dependsOn: []}
redis-geo: {dependsOn: []}
kafka-events: {dependsOn: []}
mesh-control: {dependsOn: []}
"""

# --------------------------------------------------------------------------
# Runbooks
# --------------------------------------------------------------------------
KUBECTL = "bitnami/kubectl:1.30.4"
KAFKA = "bitnami/kafka:3.7.1"
PSQL = "postgres:16.4"
AWS = "amazon/aws-cli:2.17.40"
SRE = "registry.corrida.internal/sre-tools:2025.05.2"


def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


RB = {}

RB["argocd-pin-previous-revision"] = {
    "title": "Pin an Argo CD application to its previous healthy revision",
    "services": ["rider-api", "merchant-api", "dispatch-matcher", "pricing-engine",
                 "payments-adapter", "notification-svc", "driver-ingest"],
    "symptoms": ["5xx", "error-rate-after-deploy", "latency-spike"],
    "steps": [
        step("pause-autosync", "quay.io/argoproj/argocd:v2.12.4",
             ["argocd", "app", "set", "$(APP)", "--sync-policy", "none"],
             ["argocd", "app", "get", "$(APP)", "--show-operation"],
             ["argocd", "app", "set", "$(APP)", "--sync-policy", "automated"],
             "low", "sync settings of one Argo CD application", 10),
        step("sync-previous-revision", "quay.io/argoproj/argocd:v2.12.4",
             ["argocd", "app", "rollback", "$(APP)", "$(HISTORY_ID)", "--timeout", "300"],
             ["argocd", "app", "history", "$(APP)"],
             ["argocd", "app", "sync", "$(APP)", "--revision", "$(CURRENT_REVISION)"],
             "medium", "all pods of one service in one region, rolling", 300),
    ],
}

RB["driver-ingest-scale-out"] = {
    "title": "Add driver-ingest websocket pods before they reach the per-pod socket cap",
    "services": ["driver-ingest"],
    "symptoms": ["stale-locations", "websocket-disconnects", "connection-limit"],
    "steps": [
        step("raise-hpa-floor", KUBECTL,
             ["kubectl", "-n", "driver", "patch", "hpa", "driver-ingest", "--type", "merge",
              "-p", "{\"spec\":{\"minReplicas\":$(REPLICAS)}}"],
             ["kubectl", "-n", "driver", "get", "hpa", "driver-ingest", "-o", "wide"],
             ["kubectl", "-n", "driver", "patch", "hpa", "driver-ingest", "--type", "merge",
              "-p", "{\"spec\":{\"minReplicas\":$(PREVIOUS_REPLICAS)}}"],
             "low", "driver-ingest in one region; new pods only take new connections", 30),
        step("wait-for-pods", KUBECTL,
             ["kubectl", "-n", "driver", "rollout", "status", "deploy/driver-ingest", "--timeout=300s"],
             ["kubectl", "-n", "driver", "get", "pods", "-l", "app=driver-ingest", "-o", "wide"],
             [], "low", "none (read-only)", 300),
    ],
}

MATCHER_SCALE_STEPS = [
    step("scale-matcher", KUBECTL,
         ["kubectl", "-n", "dispatch", "scale", "deploy/dispatch-matcher", "--replicas=$(REPLICAS)"],
         ["kubectl", "-n", "dispatch", "get", "deploy/dispatch-matcher", "-o",
          "jsonpath={.spec.replicas} {.status.readyReplicas}"],
         ["kubectl", "-n", "dispatch", "scale", "deploy/dispatch-matcher",
          "--replicas=$(PREVIOUS_REPLICAS)"],
         "medium", "dispatch-matcher in one region; one consumer-group rebalance", 180),
    step("watch-lag", KAFKA,
         ["kafka-consumer-groups.sh", "--bootstrap-server", "$(KAFKA_BOOTSTRAP)", "--describe",
          "--group", "matcher-orders"],
         ["kafka-consumer-groups.sh", "--bootstrap-server", "$(KAFKA_BOOTSTRAP)", "--describe",
          "--group", "matcher-orders"],
         [], "low", "none (read-only)", 20),
]
RB["matcher-scale-consumers"] = {
    "title": "Add dispatch-matcher consumers, up to the order-events partition count",
    "services": ["dispatch-matcher"],
    "symptoms": ["dispatch-backlog", "consumer-lag", "high-cpu"],
    "steps": MATCHER_SCALE_STEPS,
}
MATCHER_SCALE_V2 = {
    "title": "Add dispatch-matcher consumers when the matcher is CPU-bound (refuses if maps-eta is slow)",
    "services": ["dispatch-matcher"],
    "symptoms": ["dispatch-backlog", "consumer-lag", "high-cpu"],
    "steps": [
        step("require-healthy-eta", SRE,
             ["sre-guard", "prom", "--url", "http://prometheus.monitoring:9090", "--expr",
              "histogram_quantile(0.99, sum by (le) (rate(matcher_eta_call_seconds_bucket{region=\"$(REGION)\"}[5m])))",
              "--require", "< 0.8"],
             ["sre-guard", "prom", "--url", "http://prometheus.monitoring:9090", "--expr",
              "histogram_quantile(0.99, sum by (le) (rate(matcher_eta_call_seconds_bucket{region=\"$(REGION)\"}[5m])))",
              "--print"],
             [], "low", "none (aborts the runbook when ETA p99 >= 800 ms)", 5),
    ] + MATCHER_SCALE_STEPS,
}

RB["pgbouncer-raise-pool"] = {
    "title": "Raise the PgBouncer server pool for the orders database",
    "services": ["orders-db"],
    "symptoms": ["connection-pool-exhausted", "db-timeouts", "latency-spike"],
    "steps": [
        step("set-pool-size", PSQL,
             ["psql", "host=pgbouncer-orders port=6432 dbname=pgbouncer user=pgbouncer", "-c",
              "SET default_pool_size = $(POOL_SIZE)"],
             ["psql", "host=pgbouncer-orders port=6432 dbname=pgbouncer user=pgbouncer", "-c",
              "SHOW POOLS"],
             ["psql", "host=pgbouncer-orders port=6432 dbname=pgbouncer user=pgbouncer", "-c",
              "SET default_pool_size = $(PREVIOUS_POOL_SIZE)"],
             "medium", "every client of the orders database in one region", 15),
        step("persist-pool-size", KUBECTL,
             ["kubectl", "-n", "data", "patch", "configmap", "pgbouncer-orders", "--type", "merge",
              "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(POOL_SIZE)\"}}"],
             ["kubectl", "-n", "data", "get", "configmap", "pgbouncer-orders", "-o", "yaml"],
             ["kubectl", "-n", "data", "patch", "configmap", "pgbouncer-orders", "--type", "merge",
              "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(PREVIOUS_POOL_SIZE)\"}}"],
             "low", "pgbouncer-orders configuration", 10),
    ],
}

RB["redis-geo-promote-replica"] = {
    "title": "Hand a stalled redis-geo primary's slots to its replica (self-managed Redis Cluster)",
    "services": ["redis-geo"],
    "symptoms": ["redis-timeouts", "latency-spike"],
    "steps": [
        step("check-replica-offset", "redis:6.2.14",
             ["redis-cli", "-h", "$(REPLICA_HOST)", "-p", "6379", "info", "replication"],
             ["redis-cli", "-h", "$(REPLICA_HOST)", "-p", "6379", "info", "replication"],
             [], "low", "none (read-only)", 5),
        step("cluster-failover", "redis:6.2.14",
             ["redis-cli", "-h", "$(REPLICA_HOST)", "-p", "6379", "cluster", "failover"],
             ["redis-cli", "-h", "$(REPLICA_HOST)", "-p", "6379", "cluster", "nodes"],
             ["redis-cli", "-h", "$(PRIMARY_HOST)", "-p", "6379", "cluster", "failover"],
             "medium", "one of six geo shards; writes to it pause for a few seconds", 30),
    ],
}

RB["maps-eta-pin-previous-graph"] = {
    "title": "Serve the previous weekly OSRM graph in maps-eta and hold new builds",
    "services": ["maps-eta"],
    "symptoms": ["eta-inaccurate", "no-route"],
    "steps": [
        step("set-graph-version", KUBECTL,
             ["kubectl", "-n", "maps", "set", "env", "deploy/maps-eta-osrm",
              "OSRM_GRAPH_VERSION=$(PREVIOUS_BUILD)"],
             ["kubectl", "-n", "maps", "get", "deploy/maps-eta-osrm", "-o",
              "jsonpath={.spec.template.spec.containers[0].env}"],
             ["kubectl", "-n", "maps", "set", "env", "deploy/maps-eta-osrm",
              "OSRM_GRAPH_VERSION=$(CURRENT_BUILD)"],
             "medium", "all routing and ETAs in one region while the graph reloads", 600),
        step("hold-build-promotion", AWS,
             ["aws", "ssm", "put-parameter", "--name", "/maps/osrm/$(REGION)/promote-enabled",
              "--value", "false", "--type", "String", "--overwrite"],
             ["aws", "ssm", "get-parameter", "--name", "/maps/osrm/$(REGION)/promote-enabled"],
             ["aws", "ssm", "put-parameter", "--name", "/maps/osrm/$(REGION)/promote-enabled",
              "--value", "true", "--type", "String", "--overwrite"],
             "low", "weekly graph build pipeline of one region", 5),
    ],
}

RB["kafka-move-leaders-off-broker"] = {
    "title": "Move partition leadership off a kafka-events broker whose storage is throttled",
    "services": ["kafka-events", "driver-ingest"],
    "symptoms": ["under-replicated-partitions", "produce-timeouts", "stale-locations"],
    "steps": [
        step("demote-broker", "curlimages/curl:8.10.1",
             ["curl", "-sf", "-X", "POST",
              "http://cruise-control.kafka:9090/kafkacruisecontrol/demote_broker?brokerid=$(BROKER_ID)&dryrun=false"],
             ["curl", "-sf", "-X", "POST",
              "http://cruise-control.kafka:9090/kafkacruisecontrol/demote_broker?brokerid=$(BROKER_ID)&dryrun=true"],
             ["kafka-leader-election.sh", "--bootstrap-server", "$(KAFKA_BOOTSTRAP)",
              "--election-type", "PREFERRED", "--all-topic-partitions"],
             "medium", "leadership of the partitions led by one broker", 240),
        step("check-isr", KAFKA,
             ["kafka-topics.sh", "--bootstrap-server", "$(KAFKA_BOOTSTRAP)", "--describe",
              "--under-replicated-partitions"],
             ["kafka-topics.sh", "--bootstrap-server", "$(KAFKA_BOOTSTRAP)", "--describe",
              "--under-replicated-partitions"],
             [], "low", "none (read-only)", 20),
    ],
}

RB["payments-release-reconciler-lock"] = {
    "title": "Clear a stale capture-reconciler lock and start a catch-up run",
    "services": ["payments-adapter", "orders-db"],
    "symptoms": ["payment-pending", "orders-stuck"],
    "steps": [
        step("delete-stale-lock", PSQL,
             ["psql", "$(ORDERS_DSN)", "-c",
              "DELETE FROM job_locks WHERE name = 'capture_reconcile' AND heartbeat_at < now() - interval '5 minutes'"],
             ["psql", "$(ORDERS_DSN)", "-c",
              "SELECT name, holder, acquired_at, heartbeat_at FROM job_locks WHERE name = 'capture_reconcile'"],
             [], "low", "the capture reconciler of one region", 5),
        step("start-catch-up-run", KUBECTL,
             ["kubectl", "-n", "payments", "create", "job", "--from=cronjob/capture-reconciler",
              "capture-reconciler-manual-$(RUN_ID)"],
             ["kubectl", "-n", "payments", "get", "cronjob", "capture-reconciler", "-o", "wide"],
             ["kubectl", "-n", "payments", "delete", "job", "capture-reconciler-manual-$(RUN_ID)"],
             "low", "pending orders of one region get confirmed", 420),
    ],
}

RB["pricing-reset-surge-leader"] = {
    "title": "Free the surge-calculator leader lease held by an unreachable pricing-engine pod",
    "services": ["pricing-engine"],
    "symptoms": ["surge-stale", "price-anomaly"],
    "steps": [
        step("force-delete-holder", KUBECTL,
             ["kubectl", "-n", "pricing", "delete", "pod", "$(HOLDER_POD)", "--grace-period=0", "--force"],
             ["kubectl", "-n", "pricing", "get", "lease", "surge-calculator", "-o",
              "jsonpath={.spec.holderIdentity} {.spec.renewTime}"],
             [], "medium", "one pricing-engine pod", 15),
        step("delete-lease", KUBECTL,
             ["kubectl", "-n", "pricing", "delete", "lease", "surge-calculator"],
             ["kubectl", "-n", "pricing", "get", "lease", "surge-calculator", "-o", "yaml"],
             [], "low", "surge computation in one region pauses for up to 15 s", 15),
    ],
}

RB["mesh-restart-istiod"] = {
    "title": "Restart istiod so every sidecar gets a full, current endpoint push",
    "services": ["mesh-control"],
    "symptoms": ["upstream-503", "5xx"],
    "steps": [
        step("restart-istiod", KUBECTL,
             ["kubectl", "-n", "istio-system", "rollout", "restart", "deploy/istiod"],
             ["istioctl", "proxy-status"],
             [], "medium", "mesh control plane; sidecars keep their last config meanwhile", 120),
        step("verify-push", "istio/istioctl:1.24.3",
             ["istioctl", "proxy-status"],
             ["istioctl", "proxy-status"],
             [], "low", "none (read-only)", 30),
    ],
}

RB["matcher-enable-eta-fallback"] = {
    "title": "Switch dispatch-matcher to cached and straight-line ETAs while maps-eta is slow",
    "services": ["dispatch-matcher", "maps-eta"],
    "symptoms": ["dispatch-backlog", "eta-timeouts", "latency-spike"],
    "steps": [
        step("set-eta-mode", SRE,
             ["flagctl", "set", "matcher.eta.mode", "haversine-cache", "--region", "$(REGION)"],
             ["flagctl", "get", "matcher.eta.mode", "--region", "$(REGION)"],
             ["flagctl", "set", "matcher.eta.mode", "live", "--region", "$(REGION)"],
             "medium", "match quality in one region (ETAs approximate)", 10),
    ],
}

RB["orders-db-terminate-idle-tx"] = {
    "title": "End long idle-in-transaction sessions on orders-db and cap them for the offending role",
    "services": ["orders-db"],
    "symptoms": ["connection-pool-exhausted", "db-timeouts"],
    "steps": [
        step("terminate-idle-in-transaction", PSQL,
             ["psql", "$(ORDERS_PRIMARY_DSN)", "-c",
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'orders' "
              "AND state = 'idle in transaction' AND state_change < now() - interval '60 seconds'"],
             ["psql", "$(ORDERS_PRIMARY_DSN)", "-c",
              "SELECT usename, application_name, count(*), max(now() - state_change) FROM pg_stat_activity "
              "WHERE state = 'idle in transaction' GROUP BY 1, 2 ORDER BY 3 DESC"],
             [], "medium", "open transactions of the stuck sessions are rolled back", 10),
        step("cap-role-idle-timeout", PSQL,
             ["psql", "$(ORDERS_PRIMARY_DSN)", "-c",
              "ALTER ROLE $(APP_ROLE) SET idle_in_transaction_session_timeout = '60s'"],
             ["psql", "$(ORDERS_PRIMARY_DSN)", "-c",
              "SELECT rolname, rolconfig FROM pg_roles WHERE rolname = '$(APP_ROLE)'"],
             ["psql", "$(ORDERS_PRIMARY_DSN)", "-c",
              "ALTER ROLE $(APP_ROLE) RESET idle_in_transaction_session_timeout"],
             "low", "new sessions of one database role", 5),
    ],
}

RB["memorydb-failover-shard"] = {
    "title": "Fail a redis-geo MemoryDB shard over to one of its replicas",
    "services": ["redis-geo"],
    "symptoms": ["redis-timeouts", "latency-spike"],
    "steps": [
        step("failover-shard", AWS,
             ["aws", "memorydb", "failover-shard", "--cluster-name", "redis-geo-$(REGION)",
              "--shard-name", "$(SHARD)"],
             ["aws", "memorydb", "describe-clusters", "--cluster-name", "redis-geo-$(REGION)",
              "--show-shard-details"],
             [], "medium", "one of six geo shards; writes to it pause for up to 90 s", 150),
    ],
}

RB["valhalla-pin-tile-build"] = {
    "title": "Point maps-eta at the previous Valhalla tile build",
    "services": ["maps-eta"],
    "symptoms": ["eta-inaccurate", "no-route"],
    "steps": [
        step("set-tile-pointer", AWS,
             ["aws", "s3", "cp",
              "s3://corrida-maps-$(REGION)/valhalla/builds/$(PREVIOUS_BUILD)/MANIFEST.json",
              "s3://corrida-maps-$(REGION)/valhalla/current/MANIFEST.json"],
             ["aws", "s3", "ls", "s3://corrida-maps-$(REGION)/valhalla/builds/"],
             ["aws", "s3", "cp",
              "s3://corrida-maps-$(REGION)/valhalla/builds/$(CURRENT_BUILD)/MANIFEST.json",
              "s3://corrida-maps-$(REGION)/valhalla/current/MANIFEST.json"],
             "medium", "routing and ETAs in one region", 20),
        step("reload-routers", KUBECTL,
             ["kubectl", "-n", "maps", "rollout", "restart", "deploy/maps-eta-valhalla"],
             ["kubectl", "-n", "maps", "get", "deploy/maps-eta-valhalla", "-o", "wide"],
             [], "medium", "maps-eta routing pods of one region, rolling", 300),
    ],
}


def runbook_obj(name, spec):
    return {"apiVersion": API, "kind": "Runbook", "metadata": {"name": name}, "spec": spec}


CATALOG = {}  # name -> time it entered the catalog
STALE = {}    # runbook -> time it went stale (migration applied)


def apply_runbook(at, name, spec=None):
    t = ts(at)
    emit(t, {"at": iso(t), "type": "apply", "object": runbook_obj(name, spec or RB[name])})
    CATALOG.setdefault(name, t)


def apply_obj(at, obj):
    t = ts(at)
    emit(t, {"at": iso(t), "type": "apply", "object": obj})


# --- catalog timeline ------------------------------------------------------
apply_obj("2024-10-28T09:00", {
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
    "data": {"topology": TOPOLOGY}})
for n in ["argocd-pin-previous-revision", "driver-ingest-scale-out", "matcher-scale-consumers",
          "pgbouncer-raise-pool", "redis-geo-promote-replica", "maps-eta-pin-previous-graph"]:
    apply_runbook("2024-10-28T09:05", n)

apply_runbook("2024-12-11T10:00", "kafka-move-leaders-off-broker")      # after dx-0006
apply_runbook("2024-12-16T09:30", "payments-release-reconciler-lock")   # after dx-0007
apply_runbook("2024-12-30T10:15", "pricing-reset-surge-leader")         # after dx-0009
apply_runbook("2025-01-14T09:00", "orders-db-terminate-idle-tx")        # after dx-0012


def contradiction(name, topic, claims, resolution):
    return {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": name},
            "spec": {"topic": topic, "memories": [m for m, _ in claims],
                     "claims": [{"memory": m, "claim": c} for m, c in claims],
                     "resolution": resolution}}


PG_CLAIMS = [
    ("dx-0005", "orders-db connection waits come from a PgBouncer pool that is too small for the traffic; raising default_pool_size cleared them"),
    ("dx-0012", "raising the pool made the waits worse because Postgres hit max_connections; the connections were held by sessions idle in transaction, and terminating them cleared the waits"),
]
apply_obj("2025-01-14T09:30", contradiction(
    "orders-db-connection-exhaustion", "orders-db connection exhaustion", PG_CLAIMS, {"state": "open"}))

apply_runbook("2025-01-17T10:00", "mesh-restart-istiod")                # after dx-0013
apply_runbook("2025-02-04T10:00", "matcher-enable-eta-fallback")        # after dx-0016

MATCH_CLAIMS = [
    ("dx-0001", "a growing dispatch backlog is cleared by adding matcher consumers"),
    ("dx-0008", "adding matcher consumers cleared the backlog during an order spike"),
    ("dx-0011", "adding matcher consumers cleared the New Year's Eve backlog"),
    ("dx-0016", "adding matcher consumers made the backlog grow faster; switching the matcher to fallback ETAs cleared it"),
]
apply_obj("2025-02-04T10:30", contradiction(
    "dispatch-matcher-backlog-response", "dispatch-matcher order backlog", MATCH_CLAIMS, {"state": "open"}))

apply_obj("2025-05-02T09:00", contradiction(
    "orders-db-connection-exhaustion", "orders-db connection exhaustion",
    PG_CLAIMS + [
        ("dx-0023", "with Postgres at 38% of max_connections and no idle transactions, raising the pool fixed slow order placement"),
        ("dx-0034", "with 212 sessions idle in transaction, terminating them and capping the role's idle timeout fixed the waits"),
    ],
    {"state": "reconciled",
     "note": "Both fixes hold, under different conditions. If pg_stat_activity shows many sessions idle in "
             "transaction (dozens, older than 60 s) or Postgres is at max_connections, end those sessions and "
             "cap the offending role's idle_in_transaction_session_timeout; a bigger pool only moves the queue "
             "into Postgres. If Postgres has connection headroom, idle transactions are normal and the waiting "
             "clients follow traffic or pod count, raise default_pool_size."}))

apply_runbook("2025-05-05T09:00", "memorydb-failover-shard")            # ahead of the redis-geo move


def migration(name, spec):
    return {"apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": name}, "spec": spec}


apply_obj("2025-05-10T06:00", migration("redis-geo-to-memorydb", {
    "targetService": "redis-geo",
    "migrationDate": "2025-05-10",
    "oldArch": "Self-managed Redis Cluster 6.2 on EC2 (6 shards, one replica each); BGSAVE/AOF on the nodes, "
               "failover by hand with CLUSTER FAILOVER",
    "newArch": "Amazon MemoryDB for Redis 7.1 (6 shards, two replicas each), durable transaction log, "
               "failover through the MemoryDB API; CLUSTER FAILOVER is not available",
    "impactedRunbooks": ["redis-geo-promote-replica"],
    "impactedFixKeywords": ["CLUSTER FAILOVER", "redis-cli cluster failover", "promote the replica by hand",
                            "disable BGSAVE on the primary"],
    "confidenceDeduction": 30}))
STALE["redis-geo-promote-replica"] = ts("2025-05-10T06:00")

apply_runbook("2025-05-20T09:00", "matcher-scale-consumers", MATCHER_SCALE_V2)   # revision 2
apply_obj("2025-05-20T09:10", contradiction(
    "dispatch-matcher-backlog-response", "dispatch-matcher order backlog",
    MATCH_CLAIMS + [
        ("dx-0025", "with normal order volume and maps-eta p99 at 2.1 s, fallback ETAs cleared the backlog"),
        ("dx-0030", "with matcher CPU at 92-97% and maps-eta normal, adding consumers cleared the backlog"),
        ("dx-0036", "with matcher workers blocked on maps-eta, fallback ETAs cleared the backlog"),
    ],
    {"state": "reconciled",
     "note": "Both fixes hold, under different conditions. If matcher replicas are CPU-bound and maps-eta "
             "answers normally (ETA p99 under ~500 ms), add consumers. If matcher CPU is low and its workers "
             "wait on maps-eta (ETA p99 above 1 s), do not add consumers, since each one multiplies ETA calls; "
             "switch the matcher to fallback ETAs until maps-eta recovers. matcher-scale-consumers revision 2 "
             "refuses to run while ETA p99 is at or above 800 ms."}))

apply_runbook("2025-08-14T09:00", "valhalla-pin-tile-build")            # ahead of the maps-eta move
apply_obj("2025-08-18T06:00", migration("maps-eta-osrm-to-valhalla", {
    "targetService": "maps-eta",
    "migrationDate": "2025-08-18",
    "oldArch": "OSRM 5.27 (deployment maps-eta-osrm) with weekly full graph builds from OSM extracts, "
               "graph version selected by an environment variable",
    "newArch": "Valhalla 3.5 (deployment maps-eta-valhalla) with daily tile builds in S3, selected by a "
               "current/MANIFEST.json pointer; the OSRM deployment and its graph builds are gone",
    "impactedRunbooks": ["maps-eta-pin-previous-graph"],
    "impactedFixKeywords": ["OSRM_GRAPH_VERSION", "previous OSRM graph", "maps-eta-osrm",
                            "osrm-datastore"],
    "confidenceDeduction": 25}))
STALE["maps-eta-pin-previous-graph"] = ts("2025-08-18T06:00")

# --------------------------------------------------------------------------
# Incidents
# --------------------------------------------------------------------------
INCIDENTS = []
CLUSTER = {"eu-west-1": "prod-euw1", "sa-east-1": "prod-sae1"}


def page(name, at, fam, service, alert, annotation, expr, value, team, region, severity,
         symptom=None, deployment=None, runbook=None, outcome=None, for_min=10, extra_labels=None):
    t = ts(at)
    labels = {"source": "alertmanager", "alertname": alert, "team": team, "region": region,
              "severity": severity, "cluster": CLUSTER[region]}
    labels.update(extra_labels or {})
    spec = {"service": service, "severity": severity,
            "title": f"[FIRING:1] {alert} {service}",
            "description": annotation,
            "symptoms": [symptom] if symptom else [],
            "errorSignatures": [f"{expr}  [value={value}]"],
            "startedAt": iso(t - timedelta(minutes=for_min + 2)),
            "labels": labels}
    if deployment:
        spec["deployment"] = deployment
    INCIDENTS.append({"name": name, "at": t, "fam": fam, "spec": spec, "runbook": runbook,
                      "outcome": outcome, "style": "page"})


def report(name, at, fam, service, title, description, symptoms, signatures, team, region,
           severity, source="slack", deployment=None, runbook=None, outcome=None, started=30):
    t = ts(at)
    spec = {"service": service, "severity": severity, "title": title,
            "description": description, "symptoms": symptoms, "errorSignatures": signatures,
            "startedAt": iso(t - timedelta(minutes=started)),
            "labels": {"source": source, "team": team, "region": region}}
    if deployment:
        spec["deployment"] = deployment
    INCIDENTS.append({"name": name, "at": t, "fam": fam, "spec": spec, "runbook": runbook,
                      "outcome": outcome, "style": "report"})


def dep(id_, rev, minutes, env="production"):
    return {"id": id_, "revision": rev, "environment": env, "minutesSinceDeploy": minutes}


def out(after, root, summary, actions, by, runbook=None):
    return {"after": after, "rootCause": root, "summary": summary, "runbook": runbook,
            "actions": [{"action": a, "result": r} for a, r in actions], "confirmedBy": by}


def ran(rb):
    return f"run runbook {rb}"


# PromQL used by the alert rules
Q_BACKLOG = 'sum by (region) (dispatch_unmatched_orders{state="pending"}) > 10000'
Q_ETAWAIT = 'histogram_quantile(0.99, sum by (le) (rate(matcher_eta_call_seconds_bucket[5m]))) > 1'
Q_GEOLAT = ('histogram_quantile(0.99, sum by (le, shard) (rate(redis_command_duration_seconds_bucket'
            '{cmd="geosearch"}[5m]))) > 0.05')
Q_MDBLAT = 'max by (shard) (aws_memorydb_successful_read_request_latency_p99{cluster="redis-geo"}) > 50000'
Q_STALE = 'sum(driver_ingest_stale_drivers{window="60s"}) / sum(driver_ingest_online_drivers) > 0.05'
Q_SOCKETS = 'max(driver_ingest_open_websockets) / 32000 > 0.95'
Q_URP = 'sum by (broker) (kafka_server_replicamanager_underreplicatedpartitions) > 0'
Q_PGBWAIT = 'sum by (database) (pgbouncer_pools_client_waiting_connections{database="orders"}) > 100'
Q_IDLETX = 'count(pg_stat_activity_idle_in_transaction_seconds{datname="orders"} > 60) > 50'
Q_SURGE = 'time() - max by (region) (pricing_surge_last_computed_timestamp_seconds) > 600'
Q_NOROUTE = ('sum(rate(maps_eta_responses_total{status="no_route"}[5m])) '
             '/ sum(rate(maps_eta_responses_total[5m])) > 0.01')
Q_PENDING = 'sum(payments_orders_pending{age_bucket="gt_10m"}) > 200'
Q_RIDER5XX = ('sum(rate(http_server_requests_seconds_count{app="rider-api",status=~"5.."}[5m])) '
              '/ sum(rate(http_server_requests_seconds_count{app="rider-api"}[5m])) > 0.02')
Q_EDGE5XX = ('sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name="rider-api",envoy_response_code_class="5"}[5m])) '
             '/ sum(rate(envoy_cluster_upstream_rq_total{envoy_cluster_name="rider-api"}[5m])) > 0.03')
Q_POS = ('sum by (partner) (rate(merchant_pos_push_total{result="error"}[10m])) '
         '/ sum by (partner) (rate(merchant_pos_push_total[10m])) > 0.2')
Q_SMS = ('sum(rate(notif_sms_delivered_total{purpose="otp"}[15m])) '
         '/ sum(rate(notif_sms_sent_total{purpose="otp"}[15m])) < 0.9')
Q_PRICEREDIS = ('sum(rate(pricing_redis_errors_total{kind="timeout"}[5m])) '
                '/ sum(rate(pricing_redis_calls_total[5m])) > 0.005')


def q_upstream(src):
    return (f'sum(rate(istio_requests_total{{reporter="source",source_workload="{src}",response_flags=~"UF|URX"}}[5m])) '
            f'/ sum(rate(istio_requests_total{{reporter="source",source_workload="{src}"}}[5m])) > 0.01')


# ---- 2024-11 ---------------------------------------------------------------
page("dx-0001", "2024-11-08T19:42", "MSURGE", "dispatch-matcher", "DispatchQueueBacklog",
     "unmatched orders 14.2k > 10k for 10m (eu-west-1)", Q_BACKLOG, 14213, "dispatch", "eu-west-1",
     "high", "dispatch-backlog", runbook="matcher-scale-consumers",
     outcome=out(52,
                 "Friday dinner peak with heavy rain in Lisbon: order intake about 2.1x the usual level and all 12 "
                 "dispatch-matcher replicas CPU-bound (94-98%). maps-eta and redis-geo answered normally.",
                 "The unmatched-order queue passed 14k during the dinner peak. Matcher CPU was pegged on every "
                 "pod while its dependencies were healthy, so the matcher was simply short of capacity. Ran "
                 "matcher-scale-consumers from 12 to 24 replicas (order-events has 48 partitions); the queue "
                 "drained in about 18 minutes.",
                 [(ran("matcher-scale-consumers"), "succeeded")], "ines.m", "matcher-scale-consumers"))

report("dx-0002", "2024-11-13T11:20", "REL", "rider-api",
       "Card checkout failing for some riders since the 11:00 release",
       "Rider support reports 'Payment could not be started' at checkout since about 11:05. Around 9% of "
       "POST /v3/orders return 500, and only when a promo code is attached. rider-api 2024.46.1 finished "
       "rolling out at 10:58; nothing else changed this morning.",
       ["5xx", "error-rate-after-deploy", "checkout-failures"],
       ["ERROR o.c.rider.orders.PromoEligibilityClient - promo rules call failed: "
        "java.util.concurrent.TimeoutException: 2000 ms",
        "HTTP 500 POST /v3/orders trace=4f1c9a2e0b7d promo=RAIN10"],
       "rider-experience", "eu-west-1", "high", source="support-escalation",
       deployment=dep("rider-api-2024.46.1", "2024.46.1", 22), runbook="argocd-pin-previous-revision",
       started=15,
       outcome=out(40,
                   "rider-api 2024.46.1 added a synchronous promo-eligibility call on the order path with a 2 s "
                   "timeout and no fallback; the promo rules service slowed down under the new call pattern, so "
                   "orders carrying a promo code failed.",
                   "Checkout 500s for promo orders began right after the 2024.46.1 rollout. Ran "
                   "argocd-pin-previous-revision to put rider-api back on 2024.45.3; the 500s stopped within four "
                   "minutes of the rollout completing. 2024.46.2 made the eligibility check asynchronous.",
                   [(ran("argocd-pin-previous-revision"), "succeeded")], "joana.p",
                   "argocd-pin-previous-revision"))

page("dx-0003", "2024-11-19T08:14", "GEOSTALL", "redis-geo", "RedisGeoCommandLatencyHigh",
     "GEOSEARCH p99 870ms on redis-geo-4 (threshold 50ms)", Q_GEOLAT, 0.87, "data-platform",
     "eu-west-1", "high", "redis-timeouts", runbook="redis-geo-promote-replica",
     extra_labels={"shard": "redis-geo-4"},
     outcome=out(38,
                 "The primary of redis-geo shard 4 (38 GB resident, transparent huge pages enabled) stalled for "
                 "seconds at a time while forking for a scheduled BGSAVE. Its replica was healthy and in sync.",
                 "One geo shard answered slowly, so matcher candidate lookups and driver-ingest writes to it timed "
                 "out. Ran redis-geo-promote-replica for shard 4: the replica took over the slots and GEOSEARCH p99 "
                 "fell back to 3 ms. BGSAVE was then limited to replicas and THP turned off on the geo hosts.",
                 [(ran("redis-geo-promote-replica"), "succeeded")], "dmitri", "redis-geo-promote-replica"))

report("dx-0004", "2024-11-26T20:05", "INGCONN", "driver-ingest",
       "Drivers dropping off the live map in Lisbon",
       "Driver ops: since roughly 19:50 about a fifth of online drivers in Lisbon show as offline on the ops map "
       "although they are on trips. Their app shows a 'Reconnecting...' banner that comes and goes. Every "
       "driver-ingest pod reports close to 32k open sockets, and edge-gateway logs 502s on the stream upgrade.",
       ["stale-locations", "websocket-disconnects", "connection-limit"],
       ["WARN ws.Acceptor - refusing upgrade: active=32000 max=32000 pod=driver-ingest-6c9f7b5d4-qx2lm",
        "edge-gateway upstream_reset_before_response_started{connection_failure} path=/v2/driver/stream"],
       "driver-platform", "eu-west-1", "high", started=20, runbook="driver-ingest-scale-out",
       outcome=out(45,
                   "A driver incentive campaign raised concurrent online drivers by 18%. With 10 replicas the "
                   "driver-ingest pods hit their per-pod cap of 32k websockets and refused new upgrades, so "
                   "reconnecting drivers bounced between pods.",
                   "Drivers went stale on the ops map because driver-ingest pods were full. Ran "
                   "driver-ingest-scale-out to raise the HPA floor from 10 to 16; sockets per pod fell to about "
                   "21k and stale drivers dropped under 1% within 12 minutes.",
                   [(ran("driver-ingest-scale-out"), "succeeded")], "leo", "driver-ingest-scale-out"))

page("dx-0005", "2024-11-29T21:10", "PGLOAD", "orders-db", "PgBouncerClientsWaiting",
     "412 clients waiting for an orders connection for 5m", Q_PGBWAIT, 412, "data-platform", "eu-west-1",
     "critical", "connection-pool-exhausted", runbook="pgbouncer-raise-pool", for_min=5,
     outcome=out(35,
                 "Black Friday promotion: rider-api scaled to 60 pods and merchant-api to 24, and the PgBouncer "
                 "default_pool_size of 80 for the orders database became the bottleneck. Postgres sat at 35% of "
                 "max_connections with low CPU.",
                 "Order placement slowed to 5-6 s as clients queued in PgBouncer. Postgres had plenty of headroom "
                 "and no long-running or idle-in-transaction sessions, so the pool was just too small for the "
                 "traffic. Ran pgbouncer-raise-pool from 80 to 140; waiting clients went to zero within a minute.",
                 [(ran("pgbouncer-raise-pool"), "succeeded")], "priya", "pgbouncer-raise-pool"))

# ---- 2024-12 ---------------------------------------------------------------
page("dx-0006", "2024-12-04T18:33", "KISR", "driver-ingest", "DriverLocationStale",
     "21% of online drivers with no position update for 60s", Q_STALE, 0.21, "driver-platform",
     "eu-west-1", "critical", "stale-locations", runbook=None, for_min=5,
     outcome=out(95,
                 "The gp2 EBS volume of kafka-events broker 2 ran out of burst credits after a retention change "
                 "added backfill traffic. Its write latency went to about 400 ms, followers of the driver-locations "
                 "partitions it led dropped out of ISR, and driver-ingest's producers (acks=all) expired batches and "
                 "then blocked on a full buffer, dropping location updates.",
                 "Driver positions went stale across Lisbon and Porto. On-call first ran driver-ingest-scale-out "
                 "(16 to 24 pods) because it looked like last week's socket cap; it made things worse, since more "
                 "producers meant more expired batches. Sockets per pod were only 14k. Kafka metrics then showed "
                 "broker 2 with 31 under-replicated partitions and BurstBalance at 0. Moved partition leadership "
                 "off broker 2 by hand through Cruise Control's demote endpoint and converted its volume to gp3; "
                 "positions recovered about 10 minutes after the leadership move.",
                 [(ran("driver-ingest-scale-out"), "failed"),
                  ("demote broker 2 through Cruise Control by hand", "succeeded"),
                  ("convert broker 2 volume from gp2 to gp3", "succeeded")], "marta"))

report("dx-0007", "2024-12-10T13:05", "PAYLOCK", "payments-adapter",
       "Orders stuck on 'Confirming payment' since late morning",
       "About 900 orders placed since 11:40 are sitting in PAYMENT_PENDING, yet the PSP dashboard shows them "
       "authorised and captured. Riders see 'Confirming payment...' until support cancels the order. "
       "payments-adapter itself looks healthy: p99 180 ms and no 5xx.",
       ["payment-pending", "orders-stuck"],
       ["INFO capture-reconciler - skipping run: lock 'capture_reconcile' held by "
        "capture-reconciler-28900310-mm2kt since 2024-12-10T11:38:02Z"],
       "payments", "eu-west-1", "critical", source="support-escalation", started=60, runbook=None,
       outcome=out(50,
                   "The capture-reconciler CronJob pod was evicted mid-run when its node was scaled down. Its row in "
                   "the orders-db job_locks table had no expiry, so every later run saw the lock as held and skipped, "
                   "and capture confirmations from the PSP were never applied to orders.",
                   "Orders stayed in PAYMENT_PENDING because the reconciler had not done any work since 11:38. "
                   "Deleted the stale lock row by hand and started a reconciler job manually; 912 orders moved to "
                   "PAID within six minutes. Follow-ups: a heartbeat on the lock and a runbook for this.",
                   [("delete the stale job_locks row by hand", "succeeded"),
                    ("start a capture-reconciler job manually", "succeeded")], "bruno.c"))

report("dx-0008", "2024-12-13T19:58", "MSURGE", "merchant-api",
       "Porto restaurants: food ready, no courier assigned for 20+ minutes",
       "Merchant support is getting calls from Porto restaurants: orders are marked ready but have no courier, "
       "some for 25 minutes. Tonight is very busy (match night plus the 2-for-1 promo). The tablet app itself is "
       "responsive; only the courier assignment is lagging.",
       ["courier-assignment-delay", "dispatch-backlog"],
       ["WARN merchant-api OrderStatusPoller - order=ord_8fK2qL state=READY_FOR_PICKUP courier=null age=1520s"],
       "merchant", "eu-west-1", "high", source="support-escalation", started=35,
       runbook="matcher-scale-consumers",
       outcome=out(48,
                   "Order volume in Porto and Lisbon about 2.3x normal; every dispatch-matcher replica CPU-bound, "
                   "maps-eta p99 normal at 240 ms.",
                   "Courier assignment lagged because the matcher could not keep up with the order spike. Ran "
                   "matcher-scale-consumers from 12 to 30 replicas; unassigned orders cleared in about 20 minutes.",
                   [(ran("matcher-scale-consumers"), "succeeded")], "rafa", "matcher-scale-consumers"))

page("dx-0009", "2024-12-18T02:40", "SURGELEASE", "pricing-engine", "SurgeMultiplierStale",
     "surge multipliers not recomputed for 22m (eu-west-1)", Q_SURGE, 1320, "marketplace", "eu-west-1",
     "high", "surge-stale", deployment=dep("pricing-engine-2024.51.0", "2024.51.0", 41), runbook=None,
     outcome=out(70,
                 "The surge-calculator leader Lease was held by a pricing-engine pod on a node whose kubelet hung "
                 "(node NotReady, pod never deleted). renewTime stopped moving but holderIdentity stayed, so the "
                 "other replicas kept waiting and multipliers froze at the 02:17 values.",
                 "Surge multipliers froze after midnight. pricing-engine 2024.51.0 had gone out 40 minutes earlier, "
                 "so on-call pinned the previous revision first; the new pods came up but still waited on the lease "
                 "(failed). Force-deleted the pod holding the lease and deleted the Lease object; a healthy replica "
                 "became leader within 15 s and multipliers updated again.",
                 [(ran("argocd-pin-previous-revision"), "failed"),
                  ("force-delete the lease holder pod and delete Lease surge-calculator by hand", "succeeded")],
                 "yuki"))

report("dx-0010", "2024-12-23T17:20", "MAPBUILD", "maps-eta",
       "Porto ETAs tripled after the afternoon map refresh",
       "Since the 14:00 map refresh couriers in Porto are being sent on long detours: a 2 km pickup shows 19 "
       "minutes and the suggested route goes out to the ring road and back. Courier support has 40+ complaints. "
       "Lisbon looks normal.",
       ["eta-inaccurate", "courier-detours"],
       ["WARN RouteSanity - detour ratio 4.7 origin=41.1496,-8.6109 dest=41.1412,-8.6118 graph=osrm-2024-W52"],
       "geo", "eu-west-1", "high", deployment=dep("osrm-graph-2024-W52-eu", "2024-W52", 200), started=50,
       runbook="maps-eta-pin-previous-graph",
       outcome=out(40,
                   "The weekly OSRM graph build imported an OpenStreetMap edit that tagged a main Douro bridge and its "
                   "approaches access=no, so every route across the river detoured.",
                   "ETAs and routes in Porto went bad right after the W52 graph went live. Ran "
                   "maps-eta-pin-previous-graph to serve 2024-W51 and hold promotion of new builds; ETAs were normal "
                   "once the graph reloaded (9 minutes). The bad edit was fixed in OSM and the build got a route "
                   "sanity gate.",
                   [(ran("maps-eta-pin-previous-graph"), "succeeded")], "gustavo.l",
                   "maps-eta-pin-previous-graph"))

page("dx-0011", "2024-12-31T22:30", "MSURGE", "dispatch-matcher", "DispatchQueueBacklog",
     "unmatched orders 19.8k > 10k for 10m (eu-west-1)", Q_BACKLOG, 19806, "dispatch", "eu-west-1",
     "critical", "dispatch-backlog", runbook="matcher-scale-consumers",
     outcome=out(41,
                 "New Year's Eve late-evening spike: ride requests about 3x normal, all matcher replicas CPU-bound; "
                 "maps-eta and redis-geo normal.",
                 "Matcher short of CPU during the New Year's Eve spike. Ran matcher-scale-consumers to 36 replicas; "
                 "the queue cleared in 25 minutes.",
                 [(ran("matcher-scale-consumers"), "succeeded")], "camila.s", "matcher-scale-consumers"))

# ---- 2025-01 ---------------------------------------------------------------
report("dx-0012", "2025-01-08T12:15", "PGIDLE", "merchant-api",
       "Merchant tablets can't accept orders: 'could not get connection'",
       "Since about 11:50 merchant tablets time out when accepting orders and menu screens load slowly. "
       "merchant-api logs pool checkout timeouts and PgBouncer shows about 300 clients waiting. Traffic is an "
       "ordinary lunchtime. Two merchant-api pods were restarted with no change.",
       ["connection-pool-exhausted", "db-timeouts", "5xx"],
       ["HikariPool-1 - Connection is not available, request timed out after 5000ms.",
        "FATAL: remaining connection slots are reserved for non-replication superuser connections"],
       "merchant", "eu-west-1", "critical", started=25, runbook=None,
       outcome=out(85,
                   "merchant-api's menu-sync job opened a transaction per restaurant and then called a partner POS "
                   "API inside it. The POS API slowed to 30-60 s per call, so about 240 sessions sat idle in "
                   "transaction, holding server connections and row locks on menu_items, until Postgres reached "
                   "max_connections.",
                   "Pool exhaustion on orders-db at normal lunchtime traffic. On-call first ran "
                   "pgbouncer-raise-pool (140 to 200): Postgres hit max_connections and errors got worse (failed), "
                   "so the pool went back to 140. pg_stat_activity showed 238 sessions idle in transaction from "
                   "application_name=merchant-menu-sync, up to 9 minutes old. Terminated them by hand and suspended "
                   "the menu-sync CronJob; the queue cleared in two minutes.",
                   [(ran("pgbouncer-raise-pool"), "failed"),
                    ("terminate idle-in-transaction sessions older than 60 s by hand", "succeeded"),
                    ("suspend the menu-sync CronJob", "succeeded")], "priya"))

report("dx-0013", "2025-01-13T15:40", "MESH", "rider-api",
       "Intermittent 503s from rider-api to pricing after this morning's node rotation",
       "Since about 15:10, 3-4% of fare quote requests fail. The errors are Envoy 503s on the call to "
       "pricing-engine, and several upstream IPs in the access log belong to pods that were moved during this "
       "morning's node rotation. pricing-engine's own dashboards look healthy.",
       ["upstream-503", "quote-failures", "5xx"],
       ["upstream connect error or disconnect/reset before headers. reset reason: connection failure, "
        "transport failure reason: delayed connect error: 113",
        "\"POST /v1/quotes HTTP/1.1\" 503 UF upstream_host=10.42.17.88:8080 "
        "outbound|8080||pricing-engine.pricing.svc.cluster.local"],
       "rider-experience", "eu-west-1", "high", started=30, runbook=None,
       outcome=out(75,
                   "After the control-plane upgrade at 07:30, istiod's EndpointSlice watch hung without erroring, so "
                   "it stopped pushing endpoint updates; sidecars kept routing to IPs of pods removed during the node "
                   "rotation.",
                   "Quote calls failed against pricing-engine pod IPs that no longer existed. Restarting the rider-api "
                   "pods did not help (failed): the fresh sidecars got the same stale endpoints from istiod. "
                   "istioctl proxy-status showed EDS stale for every proxy; restarting istiod rebuilt its caches and "
                   "pushed current endpoints, and the 503s stopped within a minute.",
                   [("restart rider-api pods", "failed"), ("restart istiod by hand", "succeeded")], "tkowal"))

page("dx-0014", "2025-01-20T07:55", "KISR", "kafka-events", "KafkaUnderReplicatedPartitions",
     "38 under-replicated partitions on broker 4 for 10m", Q_URP, 38, "data-platform", "eu-west-1",
     "high", "under-replicated-partitions", runbook="kafka-move-leaders-off-broker",
     extra_labels={"broker": "4"},
     outcome=out(50,
                 "Broker 4's gp2 volume (one of the two not yet moved to gp3) drained its burst balance during a "
                 "consumer-group replay of order-events; write latency rose and followers dropped out of ISR.",
                 "Ran kafka-move-leaders-off-broker for broker 4; produce latency was back under 10 ms within "
                 "minutes and ISR recovered when the replay finished. Brokers 4 and 5 were moved to gp3 the same day.",
                 [(ran("kafka-move-leaders-off-broker"), "succeeded")], "marta", "kafka-move-leaders-off-broker"))

report("dx-0015", "2025-01-24T12:30", "GEOSTALL", "dispatch-matcher",
       "Matcher candidate lookups timing out on one redis-geo shard",
       "The dispatch backlog started climbing at 12:10. The matcher is not CPU-bound (45%), but its GEOSEARCH "
       "calls to redis-geo-2 time out after 500 ms while the other shards answer in 2-3 ms. driver-ingest also "
       "logs write timeouts to the same shard.",
       ["redis-timeouts", "dispatch-backlog", "latency-spike"],
       ["ERROR CandidateFinder - GEOSEARCH failed shard=redis-geo-2: redis: i/o timeout "
        "(read tcp 10.42.3.19:51822->10.40.8.14:6379)"],
       "dispatch", "eu-west-1", "high", started=20, runbook="redis-geo-promote-replica",
       outcome=out(35,
                   "redis-geo-2's primary (41 GB) stalled while forking for an AOF rewrite; its replica was current.",
                   "Matcher lookups timed out on one geo shard. Ran redis-geo-promote-replica on shard 2; the backlog "
                   "drained in 8 minutes. The AOF rewrite threshold was raised and rewrites moved off-peak.",
                   [(ran("redis-geo-promote-replica"), "succeeded")], "dmitri", "redis-geo-promote-replica"))

report("dx-0016", "2025-01-29T12:50", "METASLOW", "dispatch-matcher",
       "Matcher backlog growing at normal volume; more consumers made it worse",
       "The unmatched-order queue started growing at 12:20 with intake at a normal Wednesday lunch level. We "
       "added consumers at 12:35 (12 to 24) and the queue grew faster. Matcher CPU is only about 30%; thread "
       "dumps show most workers waiting in EtaClient.batchEta. maps-eta p99 is 2.6 s against a usual 250 ms.",
       ["dispatch-backlog", "eta-timeouts", "latency-spike"],
       ["WARN EtaClient - batchEta took 2644ms (pairs=48) deadline=3000ms",
        "WARN MatchWorker - 37/40 workers blocked on eta future"],
       "dispatch", "eu-west-1", "critical", started=30, runbook=None,
       outcome=out(80,
                   "maps-eta slowed down after a new traffic-speed overlay started reloading on the routing pods every "
                   "5 minutes and took most of their CPU. Matcher workers block on ETA batches, so extra matcher "
                   "replicas only multiplied ETA calls and slowed maps-eta further.",
                   "Backlog with an idle matcher and slow ETA calls. The consumer scale-up (matcher-scale-consumers, "
                   "12 to 24) made it worse (failed) and was undone. Set the flag matcher.eta.mode=haversine-cache by "
                   "hand so the matcher ranks candidates on cached and straight-line ETAs; the backlog cleared in 15 "
                   "minutes. The overlay reload moved to dedicated pods and the flag went back to live.",
                   [(ran("matcher-scale-consumers"), "failed"),
                    ("set matcher.eta.mode=haversine-cache by hand", "succeeded"),
                    ("move the traffic overlay reload off the routing pods", "succeeded")], "ines.m"))

# ---- 2025-02 ---------------------------------------------------------------
page("dx-0017", "2025-02-05T10:20", "REL", "rider-api", "RiderApiHighErrorRate",
     "5xx ratio 7.9% > 2% for 5m", Q_RIDER5XX, 0.079, "rider-experience", "eu-west-1", "high", "5xx",
     deployment=dep("rider-api-2025.06.0", "2025.06.0", 14), runbook="argocd-pin-previous-revision",
     for_min=5,
     outcome=out(30,
                 "rider-api 2025.06.0 shipped a JSON library upgrade that serialises empty promo fields as null; "
                 "payments-adapter rejected those request bodies with 400 and rider-api turned that into 500.",
                 "Error rate jumped minutes after the 2025.06.0 rollout. Ran argocd-pin-previous-revision to "
                 "2025.05.2; 5xx back under 0.3% in five minutes.",
                 [(ran("argocd-pin-previous-revision"), "succeeded")], "joana.p",
                 "argocd-pin-previous-revision"))

page("dx-0018", "2025-02-10T14:05", "PAYLOCK", "payments-adapter", "PaymentsPendingTooLong",
     "1,140 orders in PAYMENT_PENDING older than 10m", Q_PENDING, 1140, "payments", "sa-east-1",
     "critical", "payment-pending", runbook="payments-release-reconciler-lock",
     outcome=out(30,
                 "A node drain during Karpenter consolidation killed the capture-reconciler pod mid-run; its lock row "
                 "stayed behind (the lock heartbeat had not shipped yet).",
                 "Reconciler runs were all skipping on a held lock. Ran payments-release-reconciler-lock; 1,163 orders "
                 "were confirmed within 7 minutes.",
                 [(ran("payments-release-reconciler-lock"), "succeeded")], "bruno.c",
                 "payments-release-reconciler-lock"))

report("dx-0019", "2025-02-14T20:45", "ONEOFF-PING", "driver-ingest",
       "Android drivers on 7.4 dropping connection about once a minute",
       "Since the 7.4.0 driver app rollout reached 50% this afternoon, Android drivers on it flip to "
       "'Reconnecting' roughly every 60 seconds and then recover. driver-ingest sees about 9k reconnects/s "
       "(normally ~400) and location gaps for those drivers. Sockets per pod are ~21k of 32k and CPU is fine. "
       "iOS and older Android versions are unaffected.",
       ["websocket-disconnects", "reconnect-storm", "stale-locations"],
       ["INFO ws.Session - closed code=1006 idle=60.0s client=android/7.4.0",
        "WARN ws.Acceptor - reconnect rate 9112/s above 2000/s"],
       "driver-platform", "eu-west-1", "high",
       deployment=dep("driver-app-android-7.4.0-rollout", "7.4.0", 270), started=40, runbook=None,
       outcome=out(110,
                   "Driver app 7.4.0 raised the websocket ping interval from 25 s to 90 s; the network load balancer "
                   "in front of edge-gateway closes TCP connections idle for 60 s, so every Android 7.4 session was "
                   "cut once a minute.",
                   "Adding driver-ingest pods (driver-ingest-scale-out, 16 to 22) changed nothing (failed): the pods "
                   "were nowhere near their socket cap. Pushed remote config ws_ping_interval_s=20 to Android 7.4 "
                   "clients and paused the rollout; disconnects stopped as clients picked up the config. 7.4.1 went "
                   "back to 25 s.",
                   [(ran("driver-ingest-scale-out"), "failed"),
                    ("push remote config ws_ping_interval_s=20 and pause the 7.4.0 rollout", "succeeded")], "leo"))

report("dx-0020", "2025-02-19T03:10", "SURGELEASE", "rider-api",
       "Riders quoted 2.5x surge in the middle of the night",
       "Rider support: several complaints from Lisbon that fares at 3 am show 'High demand' at 2.5x with plenty of "
       "cars on the map. Quote logs show the same multiplier for every Lisbon hexagon since about 01:40, and quote "
       "conversion has dropped by half.",
       ["price-anomaly", "surge-stale"],
       ["INFO QuoteService - quote zone=lis-8a3928 multiplier=2.50 surgeComputedAt=2025-02-19T01:38:10Z"],
       "rider-experience", "eu-west-1", "high", source="support-escalation", started=60,
       runbook="pricing-reset-surge-leader",
       outcome=out(40,
                   "The surge-calculator Lease was held by a pricing-engine pod on a node with a hung kubelet; no "
                   "other replica could take over.",
                   "Quotes carried a frozen 2.5x multiplier from the evening peak. Ran pricing-reset-surge-leader "
                   "(force-deleted the holder pod, deleted the lease); a new leader was elected in 10 s and "
                   "multipliers went back to 1.0x.",
                   [(ran("pricing-reset-surge-leader"), "succeeded")], "yuki", "pricing-reset-surge-leader"))

page("dx-0021", "2025-02-25T16:40", "MAPBUILD", "maps-eta", "EtaNoRouteRatioHigh",
     "no-route responses 6.4% > 1% for 10m (sa-east-1)", Q_NOROUTE, 0.064, "geo", "sa-east-1", "high",
     "no-route", deployment=dep("osrm-graph-2025-W09-sa", "2025-W09", 95),
     runbook="maps-eta-pin-previous-graph",
     outcome=out(45,
                 "The 2025-W09 OSRM graph for São Paulo was built from a truncated OSM extract (the download was cut "
                 "short), leaving whole districts disconnected from the road network.",
                 "No-route answers jumped after the W09 graph went live. Ran maps-eta-pin-previous-graph back to "
                 "2025-W08; no-route under 0.2% after the reload. The build now checks extract size and checksum.",
                 [(ran("maps-eta-pin-previous-graph"), "succeeded")], "gustavo.l",
                 "maps-eta-pin-previous-graph"))

# ---- 2025-03 ---------------------------------------------------------------
page("dx-0022", "2025-03-03T22:25", "INGCONN", "driver-ingest", "DriverLocationStale",
     "17% of drivers silent >60s; producer errors 0/s; sockets at 99% of cap", Q_STALE, 0.17, "driver-platform",
     "sa-east-1", "high", "stale-locations", runbook="driver-ingest-scale-out", for_min=5,
     outcome=out(40,
                 "Evening peak in São Paulo after a new driver bonus: online drivers up 25%, driver-ingest pods at "
                 "their 32k socket cap. Kafka was healthy.",
                 "Checked producer errors (none) and under-replicated partitions (0) first because of dx-0006; the "
                 "pods were at 32k sockets each. Ran driver-ingest-scale-out from 12 to 18 pods; stale share under "
                 "1% in 10 minutes.",
                 [(ran("driver-ingest-scale-out"), "succeeded")], "camila.s", "driver-ingest-scale-out"))

report("dx-0023", "2025-03-07T15:45", "PGLOAD", "rider-api",
       "Order placement slow after the São Paulo zone launch",
       "We opened three new São Paulo zones this morning and rider-api scaled from 40 to 70 pods. Since 12:20 "
       "order placement p95 is 4 s (normally 600 ms). PgBouncer shows about 250 clients waiting; Postgres itself "
       "is at 38% of max_connections and 40% CPU, and there are no long transactions.",
       ["latency-spike", "connection-pool-exhausted", "db-timeouts"],
       ["WARN OrderRepository - connection acquire took 2380ms pool=orders",
        "pgbouncer LOG closing because: query_wait_timeout (age=120s)"],
       "rider-experience", "sa-east-1", "high", started=25, runbook="pgbouncer-raise-pool",
       outcome=out(30,
                   "The sa-east-1 pool was sized for the old rider-api pod count; the new zones and 70 pods needed "
                   "more server connections while Postgres had headroom.",
                   "Checked for idle-in-transaction sessions first (3, normal) because of dx-0012, then ran "
                   "pgbouncer-raise-pool from 100 to 160 in sa-east-1. Order placement p95 back to 650 ms.",
                   [(ran("pgbouncer-raise-pool"), "succeeded")], "priya", "pgbouncer-raise-pool"))

page("dx-0024", "2025-03-12T09:30", "MESH", "dispatch-matcher", "UpstreamConnectFailures",
     "outbound connect failures to maps-eta 6.2% > 1% for 5m", q_upstream("dispatch-matcher"), 0.062,
     "dispatch", "eu-west-1", "high", "upstream-503", runbook="mesh-restart-istiod", for_min=5,
     extra_labels={"destination_service": "maps-eta"},
     outcome=out(35,
                 "istiod's EndpointSlice informer stalled again, this time after an API server certificate rotation; "
                 "sidecars kept old maps-eta pod IPs after those pods were rescheduled.",
                 "proxy-status showed EDS stale across the mesh. Ran mesh-restart-istiod; connect failures stopped 40 "
                 "seconds later. Added an alert on istiod push staleness.",
                 [(ran("mesh-restart-istiod"), "succeeded")], "tkowal", "mesh-restart-istiod"))

report("dx-0025", "2025-03-18T13:10", "METASLOW", "rider-api",
       "'Finding your driver' taking 5+ minutes in Lisbon",
       "Riders in Lisbon wait 5-8 minutes on 'Finding your driver' since about 12:45. Ride and order requests are "
       "at a normal Tuesday level. The dispatch dashboard shows the unmatched queue growing and maps-eta p99 at "
       "2.1 s.",
       ["dispatch-backlog", "latency-spike", "eta-timeouts"],
       ["WARN DispatchClient - match wait 412s ride=rd_Q8s1v zone=lis-8a3928"],
       "rider-experience", "eu-west-1", "high", source="support-escalation", started=30,
       runbook="matcher-enable-eta-fallback",
       outcome=out(40,
                   "maps-eta slowed down because two of its six routing nodes had been replaced by smaller spot "
                   "instances during a capacity shortage; the matcher was waiting on ETA batches.",
                   "Matcher CPU was 28% and ETA calls slow, as in dx-0016. Ran matcher-enable-eta-fallback; the queue "
                   "was gone in 12 minutes. maps-eta was pinned to on-demand nodes and the flag set back to live two "
                   "hours later.",
                   [(ran("matcher-enable-eta-fallback"), "succeeded")], "rafa", "matcher-enable-eta-fallback"))

page("dx-0026", "2025-03-24T10:05", "POS", "merchant-api", "MerchantPosDeliveryFailing",
     "orders to POS partner brasa-grill failing 64% for 10m", Q_POS, 0.64, "merchant", "eu-west-1", "high",
     "pos-delivery-failures", runbook=None, extra_labels={"partner": "brasa-grill"},
     outcome=out(120,
                 "The partner chain's POS cloud endpoint returned 504 after a load balancer change on their side, so "
                 "orders for its 38 restaurants could not be pushed to the kitchens.",
                 "Switched the chain to tablet fallback in the merchant admin console (orders print on the backup "
                 "tablets) and opened a ticket with the partner, who fixed their load balancer at 11:55; the chain "
                 "was switched back afterwards. No runbook: the switch is an admin-console change and the real fix "
                 "is on the partner's side.",
                 [("switch brasa-grill to tablet fallback in the merchant admin", "succeeded"),
                  ("escalate to the partner's POS support", "succeeded")], "sofia.r"))

report("dx-0027", "2025-03-28T19:20", "KISR", "driver-ingest",
       "Driver positions freezing for 30-90 s in batches",
       "The ops map shows groups of drivers freezing for 30-90 seconds and then jumping ahead. driver-ingest pods "
       "are fine on CPU and sockets (18k of 32k), but their logs are full of produce expirations and buffer "
       "allocation timeouts for the driver-locations topic.",
       ["stale-locations", "produce-timeouts"],
       ["org.apache.kafka.common.errors.TimeoutException: Expiring 412 record(s) for driver-locations-11:30007 ms "
        "has passed since batch creation",
        "org.apache.kafka.clients.producer.BufferExhaustedException: Failed to allocate 16384 bytes within the "
        "configured max blocking time 60000 ms"],
       "driver-platform", "eu-west-1", "high", started=25, runbook="kafka-move-leaders-off-broker",
       outcome=out(40,
                   "Broker 5's gp3 volume hit its provisioned throughput (125 MiB/s) during a partition reassignment "
                   "started earlier that day; followers fell behind and ISR shrank on the partitions it led.",
                   "Producer expirations pointed at Kafka, not at driver-ingest. Ran kafka-move-leaders-off-broker "
                   "for broker 5 and throttled the reassignment; producer errors stopped in 3 minutes. The volume's "
                   "throughput was raised to 500 MiB/s.",
                   [(ran("kafka-move-leaders-off-broker"), "succeeded")], "marta",
                   "kafka-move-leaders-off-broker"))

# ---- 2025-04 ---------------------------------------------------------------
page("dx-0028", "2025-04-02T11:00", "GEOSTALL", "redis-geo", "RedisGeoCommandLatencyHigh",
     "GEOSEARCH p99 640ms on redis-geo-5 (threshold 50ms)", Q_GEOLAT, 0.64, "data-platform", "eu-west-1",
     "high", "redis-timeouts", runbook="redis-geo-promote-replica", extra_labels={"shard": "redis-geo-5"},
     outcome=out(30,
                 "The EC2 host under redis-geo-5's primary was degraded (packet loss, scheduled retirement notice "
                 "from AWS); the replica was healthy.",
                 "Ran redis-geo-promote-replica for shard 5; latency back to 2 ms. The old primary's instance was "
                 "replaced afterwards.",
                 [(ran("redis-geo-promote-replica"), "succeeded")], "dmitri", "redis-geo-promote-replica"))

report("dx-0029", "2025-04-07T16:30", "PAYLOCK", "rider-api",
       "Riders stuck on 'Confirming payment', support cancelling orders",
       "Since roughly 12:50 São Paulo riders paying by card sit on 'Confirming payment...' for minutes. Support "
       "has cancelled about 200 orders. Card authorisations succeed and the PSP shows the captures; the orders "
       "just never move to paid.",
       ["payment-pending", "orders-stuck", "checkout-failures"],
       ["INFO OrderStatus - ord_Zr8kP1 state=PAYMENT_PENDING age=1840s psp_ref=8815123398872210"],
       "rider-experience", "sa-east-1", "critical", source="support-escalation", started=40,
       runbook="payments-release-reconciler-lock",
       outcome=out(35,
                   "A capture-reconciler pod was OOM-killed mid-run on a large catch-up batch and left its lock; the "
                   "new heartbeat check was still warn-only.",
                   "payments-adapter logs showed every reconciler run skipping on the held lock. Ran "
                   "payments-release-reconciler-lock; pending orders were confirmed in 9 minutes. Lock expiry became "
                   "enforcing in the next release.",
                   [(ran("payments-release-reconciler-lock"), "succeeded")], "bruno.c",
                   "payments-release-reconciler-lock"))

report("dx-0030", "2025-04-11T23:10", "MSURGE", "dispatch-matcher",
       "Long driver match waits in São Paulo during the storm",
       "Heavy rain in São Paulo since 19:30 and ride requests are up about 70%. The unmatched queue is at 16k and "
       "climbing. Matcher pods are at 92-97% CPU across the board; maps-eta p99 is normal at 230 ms and redis-geo "
       "is quiet.",
       ["dispatch-backlog", "high-cpu", "consumer-lag"],
       ["kafka consumer group matcher-orders: total lag 41233 over 48 partitions, 12 members"],
       "dispatch", "sa-east-1", "high", started=30, runbook="matcher-scale-consumers",
       outcome=out(45,
                   "Storm-driven demand surge; matcher replicas CPU-bound while ETAs were healthy.",
                   "Checked maps-eta latency first because of the open backlog contradiction (dx-0016): it was "
                   "normal, so ran matcher-scale-consumers from 12 to 30; lag cleared in 22 minutes.",
                   [(ran("matcher-scale-consumers"), "succeeded")], "camila.s", "matcher-scale-consumers"))

report("dx-0031", "2025-04-16T09:50", "REL", "merchant-api",
       "Menu edits failing after merchant-api 5.8.0",
       "Restaurants report that saving menu changes fails with 'Something went wrong' since this morning. "
       "merchant-api 5.8.0 went out at 10:15. PUT /v2/menus/{id}/items returns 500 for items without modifier "
       "groups.",
       ["5xx", "error-rate-after-deploy"],
       ["java.lang.NullPointerException: Cannot invoke \"java.util.List.size()\" because "
        "\"item.modifierGroups\" is null",
        "HTTP 500 PUT /v2/menus/mn_71c2/items"],
       "merchant", "eu-west-1", "medium", deployment=dep("merchant-api-5.8.0", "5.8.0", 35), started=30,
       runbook="argocd-pin-previous-revision",
       outcome=out(25,
                   "merchant-api 5.8.0 assumed modifierGroups is always present; older menu items store null.",
                   "Ran argocd-pin-previous-revision to put merchant-api back on 5.7.3; menu saves worked again. "
                   "Fixed in 5.8.1.",
                   [(ran("argocd-pin-previous-revision"), "succeeded")], "sofia.r",
                   "argocd-pin-previous-revision"))

page("dx-0032", "2025-04-20T02:15", "SURGELEASE", "pricing-engine", "SurgeMultiplierStale",
     "surge multipliers not recomputed for 18m (sa-east-1)", Q_SURGE, 1080, "marketplace", "sa-east-1",
     "high", "surge-stale", runbook="pricing-reset-surge-leader",
     outcome=out(30,
                 "Leader lease held by a pod on a node stuck NotReady after a kernel hang, as in dx-0020.",
                 "Ran pricing-reset-surge-leader; multipliers were recomputed within 20 s.",
                 [(ran("pricing-reset-surge-leader"), "succeeded")], "yuki", "pricing-reset-surge-leader"))

report("dx-0033", "2025-04-24T18:40", "ONEOFF-REBAL", "dispatch-matcher",
       "Matcher consumer group rebalancing every few minutes since 3.12.0",
       "Unmatched orders oscillate: the queue grows for about five minutes, partly drains, then grows again. The "
       "matcher-orders consumer group goes through a rebalance every 4-6 minutes, with members leaving on poll "
       "timeouts. Order intake is normal. dispatch-matcher 3.12.0 (new batched matching) rolled out at 17:50.",
       ["dispatch-backlog", "consumer-lag", "rebalance-storm"],
       ["consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer "
        "than the configured max.poll.interval.ms",
        "Attempt to heartbeat failed since group is rebalancing"],
       "dispatch", "eu-west-1", "high", deployment=dep("dispatch-matcher-3.12.0", "3.12.0", 50), started=35,
       runbook="argocd-pin-previous-revision",
       outcome=out(45,
                   "3.12.0's batched matching processed a whole poll (up to 500 orders) as one batch; at peak a batch "
                   "took longer than max.poll.interval.ms (300 s), so members were evicted and partitions reassigned "
                   "again and again.",
                   "Added consumers first (matcher-scale-consumers, 12 to 20): rebalances only got longer (failed). "
                   "Ran argocd-pin-previous-revision to put the matcher back on 3.11.4; the group settled and the "
                   "queue cleared in 10 minutes. 3.12.1 caps a batch at 100 orders.",
                   [(ran("matcher-scale-consumers"), "failed"),
                    (ran("argocd-pin-previous-revision"), "succeeded")], "ines.m",
                   "argocd-pin-previous-revision"))

page("dx-0034", "2025-04-29T12:20", "PGIDLE", "orders-db", "PostgresIdleInTransaction",
     "212 sessions idle in transaction for more than 60s on orders primary", Q_IDLETX, 212,
     "data-platform", "eu-west-1", "critical", "connection-pool-exhausted",
     runbook="orders-db-terminate-idle-tx", for_min=5,
     outcome=out(25,
                 "merchant-api's menu-sync again held transactions open while waiting on a partner POS API that had "
                 "slowed to 40 s per call; its role had no idle-in-transaction timeout.",
                 "Ran orders-db-terminate-idle-tx (ended sessions idle in transaction for more than 60 s and set "
                 "idle_in_transaction_session_timeout=60s on role merchant_menu_sync); waits cleared within a "
                 "minute.",
                 [(ran("orders-db-terminate-idle-tx"), "succeeded")], "priya", "orders-db-terminate-idle-tx"))

# ---- 2025-05 ---------------------------------------------------------------
report("dx-0035", "2025-05-06T19:05", "MESH", "merchant-api",
       "merchant-api 503s calling dispatch-matcher after node rotation",
       "Courier status on merchant tablets fails intermittently since about 19:40. merchant-api's calls to "
       "dispatch-matcher come back as Envoy 503 with flag UF, and the failing upstream IPs are pods that were "
       "drained in the 19:00 node rotation. dispatch-matcher's own success rate is 99.9%.",
       ["upstream-503", "5xx"],
       ["\"GET /v1/assignments/ord_2Lx9 HTTP/1.1\" 503 UF upstream_host=10.42.31.7:8080 "
        "outbound|8080||dispatch-matcher.dispatch.svc.cluster.local"],
       "merchant", "eu-west-1", "medium", started=25, runbook="mesh-restart-istiod",
       outcome=out(30,
                   "istiod stuck on a stale endpoint view after an API server failover; sidecars routed to deleted "
                   "pods.",
                   "Ran mesh-restart-istiod; failures stopped. istiod was upgraded to 1.24.3, which carries an "
                   "informer fix.",
                   [(ran("mesh-restart-istiod"), "succeeded")], "tkowal", "mesh-restart-istiod"))

page("dx-0036", "2025-05-14T12:55", "METASLOW", "dispatch-matcher", "MatcherEtaWaitHigh",
     "matcher blocked on maps-eta: ETA p99 2.4s > 1s for 10m", Q_ETAWAIT, 2.41, "dispatch", "eu-west-1",
     "high", "eta-timeouts", runbook="matcher-enable-eta-fallback",
     outcome=out(30,
                 "A config change halved the CPU limits of the maps-eta routing pods; they were throttled and ETA "
                 "calls slowed down, stalling matcher workers.",
                 "Ran matcher-enable-eta-fallback, then restored maps-eta CPU limits; flag back to live at 14:10.",
                 [(ran("matcher-enable-eta-fallback"), "succeeded")], "rafa", "matcher-enable-eta-fallback"))

report("dx-0037", "2025-05-22T08:40", "GEOSTALL", "driver-ingest",
       "Location writes to redis-geo timing out on one shard",
       "Since 09:15 about 1 in 6 location writes from driver-ingest to redis-geo time out; all failures are on "
       "keys in shard 0003. In the MemoryDB console that shard's primary shows latency spikes while its two "
       "replicas look normal.",
       ["redis-timeouts", "stale-locations"],
       ["WARN GeoWriter - GEOADD timeout after 200ms node=redis-geo-0003-001.redis-geo-eu-west-1.memorydb:6379"],
       "driver-platform", "eu-west-1", "high", started=25, runbook="memorydb-failover-shard",
       outcome=out(45,
                   "The primary node of MemoryDB shard 0003 ran on a degraded host (confirmed later by an AWS Health "
                   "event); the replicas were healthy.",
                   "On-call first tried the old redis-geo-promote-replica runbook: CLUSTER FAILOVER is not available "
                   "on MemoryDB and the command was rejected (failed). Ran memorydb-failover-shard for shard 0003; a "
                   "replica was promoted in about 90 s and the timeouts stopped.",
                   [(ran("redis-geo-promote-replica"), "failed"),
                    (ran("memorydb-failover-shard"), "succeeded")], "dmitri", "memorydb-failover-shard"))

page("dx-0038", "2025-05-28T21:30", "PGLOAD", "orders-db", "PgBouncerClientsWaiting",
     "318 clients waiting for orders connections; Postgres at 41% of max_connections", Q_PGBWAIT, 318, "data-platform", "eu-west-1",
     "critical", "connection-pool-exhausted", runbook="pgbouncer-raise-pool", for_min=5,
     outcome=out(30,
                 "Match-night order surge in Lisbon and Porto with rider-api at 72 pods; Postgres at 41% of "
                 "max_connections and idle-in-transaction sessions at a normal level.",
                 "PostgresIdleInTransaction had not fired and pg_stat_activity showed 4 idle transactions, so this "
                 "was load. Ran pgbouncer-raise-pool from 140 to 180; the queue emptied.",
                 [(ran("pgbouncer-raise-pool"), "succeeded")], "priya", "pgbouncer-raise-pool"))

# ---- 2025-06 ---------------------------------------------------------------
report("dx-0039", "2025-06-03T15:15", "INGCONN", "edge-gateway",
       "Websocket upgrade failures from edge to driver-ingest during lunch peak",
       "edge-gateway has been logging 502s on /v2/driver/stream upgrades since 11:55, about 6% of attempts. The "
       "driver-ingest pods report 31.9k of 32k open sockets each. Online drivers in São Paulo are up 22% since the "
       "new incentive started this week.",
       ["websocket-disconnects", "connection-limit", "5xx"],
       ["[edge] \"GET /v2/driver/stream HTTP/1.1\" 502 UF,URX upstream=driver-ingest.driver.svc:8443"],
       "platform", "sa-east-1", "high", started=20, runbook="driver-ingest-scale-out",
       outcome=out(30,
                   "Growth in online drivers pushed driver-ingest pods to the per-pod socket cap.",
                   "Ran driver-ingest-scale-out from 12 to 20 pods; edge 502s stopped.",
                   [(ran("driver-ingest-scale-out"), "succeeded")], "leo", "driver-ingest-scale-out"))

page("dx-0040", "2025-06-09T10:30", "KISR", "driver-ingest", "DriverLocationStale",
     "24% of drivers silent >60s; producer errors 812/s; sockets at 53% of cap", Q_STALE, 0.24, "driver-platform",
     "eu-west-1", "critical", "stale-locations", runbook="kafka-move-leaders-off-broker", for_min=5,
     outcome=out(40,
                 "kafka-events broker 1's volume hit its throughput limit while the log cleaner worked through a "
                 "large compacted topic after a config change; ISR shrank on the partitions it led and "
                 "driver-ingest producers expired batches.",
                 "The alert showed producer errors at 812/s with sockets at half the cap, so this was Kafka, not capacity. "
                 "Ran kafka-move-leaders-off-broker for broker 1; positions fresh again in 5 minutes.",
                 [(ran("kafka-move-leaders-off-broker"), "succeeded")], "marta",
                 "kafka-move-leaders-off-broker"))

report("dx-0041", "2025-06-13T22:40", "MAPBUILD", "rider-api",
       "Pickup ETAs of 40+ min in parts of Porto since the map refresh",
       "Riders in Porto's eastern districts see pickup ETAs of 40-50 minutes with cars visibly 2-3 km away, and "
       "drivers are sent around a long loop near Campanhã. It started after the 19:00 map data refresh.",
       ["eta-inaccurate", "courier-detours"],
       ["WARN RouteSanity - detour ratio 6.1 graph=osrm-2025-W24 origin=41.1491,-8.5855"],
       "rider-experience", "eu-west-1", "high", deployment=dep("osrm-graph-2025-W24-eu", "2025-W24", 280),
       started=60, runbook="maps-eta-pin-previous-graph",
       outcome=out(50,
                   "An OSM edit that reversed the direction of several one-way streets was imported in the W24 "
                   "graph.",
                   "Ran maps-eta-pin-previous-graph back to 2025-W23; ETAs normal after the reload.",
                   [(ran("maps-eta-pin-previous-graph"), "succeeded")], "gustavo.l",
                   "maps-eta-pin-previous-graph"))

report("dx-0042", "2025-06-18T14:20", "ONEOFF-ISSUER", "payments-adapter",
       "Card payments failing for Elo cards in Brazil",
       "Since 10:50 about 30% of card authorisations in sa-east-1 are refused. Every refusal is an Elo card; Visa "
       "and Mastercard are fine. The PSP returns 'Issuer Unavailable'. Orders fail at checkout rather than going "
       "pending.",
       ["card-declines", "checkout-failures"],
       ["WARN PspClient - authorise refused resultCode=Refused refusalReason='Issuer Unavailable' brand=elo"],
       "payments", "sa-east-1", "high", started=30, runbook=None,
       outcome=out(90,
                   "Outage in the card network's issuer processing for Elo; nothing on our side.",
                   "Confirmed through the PSP status page and our account manager. Added an in-app banner suggesting "
                   "Pix to Elo card holders; authorisations recovered at 12:35 when the network fixed the outage.",
                   [("show a Pix banner to Elo card holders", "partial"),
                    ("wait for the card network to recover", "succeeded")], "bruno.c"))

page("dx-0043", "2025-06-23T16:05", "PAYLOCK", "payments-adapter", "PaymentsPendingTooLong",
     "880 orders in PAYMENT_PENDING older than 10m", Q_PENDING, 880, "payments", "eu-west-1", "critical",
     "payment-pending", runbook="payments-release-reconciler-lock",
     outcome=out(25,
                 "A reconciler pod was preempted by a higher-priority batch job mid-run; a typo in the config had "
                 "disabled the lock expiry check, so the 40-minute-old lock was still honoured.",
                 "Ran payments-release-reconciler-lock; pending orders confirmed in 6 minutes and the config fixed.",
                 [(ran("payments-release-reconciler-lock"), "succeeded")], "bruno.c",
                 "payments-release-reconciler-lock"))

page("dx-0044", "2025-06-27T19:30", "MSURGE", "dispatch-matcher", "DispatchQueueBacklog",
     "unmatched orders 16.9k > 10k for 10m; matcher CPU 95%, ETA p99 0.26s", Q_BACKLOG, 16930, "dispatch", "eu-west-1", "high",
     "dispatch-backlog", runbook="matcher-scale-consumers",
     outcome=out(40,
                 "Friday dinner with a heatwave promotion: order intake 2.2x, matcher CPU-bound, ETA p99 260 ms.",
                 "Ran matcher-scale-consumers (revision 2); its ETA check passed and the matcher went from 12 to 28 "
                 "replicas. Queue cleared in 20 minutes.",
                 [(ran("matcher-scale-consumers"), "succeeded")], "ines.m", "matcher-scale-consumers"))

report("dx-0045", "2025-06-27T19:46", "MSURGE", "merchant-api",
       "Lisbon restaurants: orders sitting ready with no courier",
       "Several Lisbon restaurants are calling: orders marked ready 15-20 minutes ago still have no courier. It's "
       "a very busy evening.",
       ["courier-assignment-delay"],
       ["WARN OrderStatusPoller - order=ord_Wm3kT9 state=READY_FOR_PICKUP courier=null age=1130s"],
       "merchant", "eu-west-1", "medium", source="support-escalation", started=20,
       runbook="matcher-scale-consumers", outcome=None)  # closed as a duplicate of dx-0044, no outcome

# ---- 2025-07 ---------------------------------------------------------------
page("dx-0046", "2025-07-02T09:10", "REL", "edge-gateway", "EdgeUpstream5xxHigh",
     "upstream rider-api 5xx 11% > 3% for 5m", Q_EDGE5XX, 0.11, "platform", "eu-west-1", "high", "5xx",
     deployment=dep("rider-api-2025.27.0", "2025.27.0", 9), runbook="argocd-pin-previous-revision",
     for_min=5,
     outcome=out(25,
                 "rider-api 2025.27.0 added a saved-places query on a new column without an index; the queries timed "
                 "out and requests returned 500.",
                 "Edge 5xx came from rider-api right after its release. Ran argocd-pin-previous-revision on rider-api "
                 "(back to 2025.26.1); 5xx normal in 4 minutes. The index was added before the release went out "
                 "again.",
                 [(ran("argocd-pin-previous-revision"), "succeeded")], "joana.p",
                 "argocd-pin-previous-revision"))

page("dx-0047", "2025-07-08T17:45", "MESH", "rider-api", "UpstreamConnectFailures",
     "outbound connect failures to payments-adapter 4.8% > 1% for 5m", q_upstream("rider-api"), 0.048,
     "rider-experience", "eu-west-1", "high", "upstream-503", runbook="mesh-restart-istiod", for_min=5,
     extra_labels={"destination_service": "payments-adapter"},
     outcome=out(40,
                 "istiod 1.24.3's endpoint informer stalled after API server connection resets during an EKS control "
                 "plane scaling event; sidecars kept payments-adapter pod IPs that had been rescheduled.",
                 "Ran mesh-restart-istiod; connect failures stopped within a minute.",
                 [(ran("mesh-restart-istiod"), "succeeded")], "tkowal", "mesh-restart-istiod"))

report("dx-0048", "2025-07-08T18:02", "MESH", "rider-api",
       "Checkout 'Something went wrong' for some riders",
       "Support: since around 18:30 some riders get 'Something went wrong, try again' when confirming payment; "
       "retrying usually works. Roughly 5% of checkout attempts.",
       ["checkout-failures", "5xx"],
       ["HTTP 500 POST /v3/orders/ord_Pq92/confirm cause=payments-adapter returned 503"],
       "rider-experience", "eu-west-1", "high", source="support-escalation", started=30,
       runbook="mesh-restart-istiod",
       outcome=out(35,
                   "Same stale mesh endpoints as dx-0047: rider-api's sidecars routed payments-adapter calls to pod "
                   "IPs that no longer existed.",
                   "Re-page of dx-0047. Checkout errors stopped when istiod was restarted there; nothing else was "
                   "done.",
                   [("confirm recovery after the istiod restart in dx-0047", "succeeded")], "tkowal",
                   "mesh-restart-istiod"))

report("dx-0049", "2025-07-15T12:25", "PGIDLE", "payments-adapter",
       "Capture writes timing out; orders-db nearly out of connections",
       "payments-adapter has been timing out writing capture results since 13:05 and orders waiting for payment "
       "confirmation are building up. On orders-db, 498 of 500 connections are in use and about 170 of them are "
       "idle in transaction for 2-9 minutes, all from application_name=refund-batch.",
       ["db-timeouts", "connection-pool-exhausted", "payment-pending"],
       ["ERROR CaptureWriter - could not write capture ord_5Tk1: timeout acquiring connection after 3000ms",
        "FATAL: sorry, too many clients already"],
       "payments", "eu-west-1", "critical", started=20, runbook="orders-db-terminate-idle-tx",
       outcome=out(30,
                   "payments-adapter's new refund-batch job (released the day before) wrapped each PSP refund call in a "
                   "database transaction; the PSP refunds API slowed to 20-40 s, so sessions piled up idle in "
                   "transaction.",
                   "Ran orders-db-terminate-idle-tx for role payments_refund_batch; captures were written again and "
                   "pending orders cleared in 4 minutes. The job now commits before calling the PSP.",
                   [(ran("orders-db-terminate-idle-tx"), "succeeded")], "priya", "orders-db-terminate-idle-tx"))

report("dx-0050", "2025-07-21T01:50", "SURGELEASE", "pricing-engine",
       "Surge heatmap frozen since 22:20 in São Paulo",
       "Pricing on-call: the sa-east-1 surge heatmap has not changed since 22:20. All pricing-engine replicas log "
       "that they are trying to acquire the leader lease; the current holder is a pod on a node that has been "
       "NotReady for 35 minutes and still shows Running.",
       ["surge-stale", "price-anomaly"],
       ["I0721 01:21:03.512 leaderelection.go:250] attempting to acquire leader lease pricing/surge-calculator..."],
       "marketplace", "sa-east-1", "high", source="oncall", started=30, runbook="pricing-reset-surge-leader",
       outcome=out(20,
                   "Node hung after a containerd crash; the lease holder pod on it was never deleted.",
                   "Ran pricing-reset-surge-leader; a new leader within 10 s.",
                   [(ran("pricing-reset-surge-leader"), "succeeded")], "yuki", "pricing-reset-surge-leader"))

page("dx-0051", "2025-07-26T11:30", "GEOSTALL", "pricing-engine", "PricingRedisTimeouts",
     "redis-geo read timeouts 3.1% > 0.5% for 5m", Q_PRICEREDIS, 0.031, "marketplace", "eu-west-1", "high",
     "redis-timeouts", runbook="memorydb-failover-shard", for_min=5,
     outcome=out(35,
                 "The primary node of MemoryDB shard 0005 degraded (high network latency on its host); the replicas "
                 "were fine.",
                 "pricing-engine's timeouts all mapped to shard 0005, whose primary showed read latency spikes. Ran "
                 "memorydb-failover-shard for 0005; timeouts stopped.",
                 [(ran("memorydb-failover-shard"), "succeeded")], "dmitri", "memorydb-failover-shard"))

report("dx-0052", "2025-07-30T18:35", "POS", "merchant-api",
       "Brasa Grill restaurants not receiving orders",
       "Brasa Grill locations report no incoming orders since about 19:10, although the chain shows as open in "
       "the rider app. merchant-api's pushes to the chain's POS integration fail with connect timeouts. Other "
       "chains and tablet-only restaurants are fine.",
       ["pos-delivery-failures", "orders-stuck"],
       ["WARN PosPushWorker - partner=brasa-grill push failed: connect timed out after 10000ms "
        "(https://pos-api.brasagrill.example/v2/orders)"],
       "merchant", "eu-west-1", "high", source="support-escalation", started=25, runbook=None,
       outcome=out(95,
                   "The partner moved its POS API behind a new firewall that did not allow our egress IPs.",
                   "Switched the chain to tablet fallback, sent the partner our egress IP list; they allowed it at "
                   "21:05 and the chain was switched back.",
                   [("switch brasa-grill to tablet fallback in the merchant admin", "succeeded"),
                    ("send egress IPs to the partner", "succeeded")], "sofia.r"))

# ---- 2025-08 ---------------------------------------------------------------
report("dx-0053", "2025-08-05T08:20", "KISR", "dispatch-matcher",
       "Matcher sees frozen driver positions; driver-locations input rate halved",
       "Candidate lists in Porto are thin and many drivers' last positions are 1-2 minutes old. The matcher's "
       "driver-locations consumer has no lag, but the topic's incoming message rate is half of normal for this "
       "hour. kafka-events broker 3 reports 52 under-replicated partitions.",
       ["stale-locations", "under-replicated-partitions", "dispatch-backlog"],
       ["kafka-events-3 INFO [Partition driver-locations-27 broker=3] Shrinking ISR from 3,1,5 to 3"],
       "dispatch", "eu-west-1", "high", started=25, runbook="kafka-move-leaders-off-broker",
       outcome=out(35,
                   "EBS reported degraded I/O on broker 3's volume (write latency around 200 ms); followers fell out "
                   "of ISR and driver-ingest's producers timed out.",
                   "Ran kafka-move-leaders-off-broker for broker 3, then replaced its volume. Input rate normal in 4 "
                   "minutes.",
                   [(ran("kafka-move-leaders-off-broker"), "succeeded")], "marta",
                   "kafka-move-leaders-off-broker"))

page("dx-0054", "2025-08-11T11:30", "ONEOFF-SMS", "notification-svc", "SmsDeliveryRateLow",
     "OTP SMS delivery 41% < 90% for 15m (sa-east-1)", Q_SMS, 0.41, "comms", "sa-east-1", "high",
     "sms-undelivered", runbook=None, for_min=15,
     outcome=out(150,
                 "A Brazilian mobile carrier began filtering SMS from our OTP long codes as spam after a marketing "
                 "campaign sent from the same numbers; delivery receipts returned error 30007 for that carrier only.",
                 "Routed OTP for that carrier's subscribers to WhatsApp in the messaging provider's console, moved "
                 "marketing off the OTP sender pool and filed an unblock request with the carrier; SMS delivery "
                 "recovered two days later.",
                 [("route OTP for the affected carrier to WhatsApp by hand", "succeeded"),
                  ("file a carrier unblock request", "partial")], "camila.s"))

page("dx-0055", "2025-08-26T15:10", "MAPBUILD", "maps-eta", "EtaNoRouteRatioHigh",
     "no-route responses 4.9% > 1% for 10m (eu-west-1)", Q_NOROUTE, 0.049, "geo", "eu-west-1", "high",
     "no-route", deployment=dep("valhalla-tiles-2025-08-26-eu", "2025-08-26.1", 70),
     runbook="valhalla-pin-tile-build",
     outcome=out(40,
                 "The daily Valhalla tile build picked up an OSM edit that disconnected the ramps of a motorway "
                 "junction near Lisbon; routes through it failed.",
                 "On-call ran maps-eta-pin-previous-graph out of habit: the OSRM deployment it targets no longer exists "
                 "after the Valhalla move (failed). Ran valhalla-pin-tile-build back to 2025-08-25.1; no-route "
                 "responses fell to 0.3%.",
                 [(ran("maps-eta-pin-previous-graph"), "failed"),
                  (ran("valhalla-pin-tile-build"), "succeeded")], "gustavo.l", "valhalla-pin-tile-build"))

# ---- 2025-09 ---------------------------------------------------------------
page("dx-0056", "2025-09-01T11:40", "INGCONN", "driver-ingest", "DriverIngestSocketsNearLimit",
     "busiest pod at 31.2k websockets (limit 32k)", Q_SOCKETS, 0.976, "driver-platform", "sa-east-1", "high",
     "connection-limit", runbook="driver-ingest-scale-out", for_min=5,
     outcome=out(30,
                 "Back-to-school week plus a new driver referral bonus raised online drivers in São Paulo; pods at "
                 "the socket cap.",
                 "Ran driver-ingest-scale-out from 20 to 26 pods.",
                 [(ran("driver-ingest-scale-out"), "succeeded")], "leo", "driver-ingest-scale-out"))

report("dx-0057", "2025-09-05T20:30", "METASLOW", "merchant-api",
       "Courier assignment slow in Lisbon at ordinary Friday volume",
       "Restaurants in Lisbon say couriers are taking 10+ minutes to be assigned this evening. Order volume is a "
       "normal Friday. The dispatch dashboard shows matcher CPU at about 25%, and ETA calls to maps-eta have been "
       "taking 3 s at p99 since the 21:00 tile reload.",
       ["courier-assignment-delay", "eta-timeouts"],
       ["WARN OrderStatusPoller - order=ord_T7cX2m state=READY_FOR_PICKUP courier=null age=780s"],
       "merchant", "eu-west-1", "high", source="support-escalation", started=25,
       runbook="matcher-enable-eta-fallback",
       outcome=out(35,
                   "A Valhalla tile reload at peak cleared maps-eta's in-memory tile cache; cold tile reads from S3 "
                   "made routing slow for about 40 minutes.",
                   "Ran matcher-enable-eta-fallback; assignments were back to normal in 10 minutes. Tile reloads moved "
                   "off-peak with a cache pre-warm.",
                   [(ran("matcher-enable-eta-fallback"), "succeeded")], "rafa", "matcher-enable-eta-fallback"))

report("dx-0058", "2025-09-10T13:20", "REL", "rider-api",
       "Promo codes rejected after rider-api 2025.37.0",
       "Riders get 'This code is not valid' for every promo code since about 14:00. rider-api 2025.37.0 went live "
       "at 13:52. POST /v3/promos/validate returns 422 for codes that validate fine in the admin tool.",
       ["error-rate-after-deploy", "checkout-failures"],
       ["WARN PromoController - code=VERAO15 rejected: campaign window check failed "
        "(now=2025-09-10T13:04:11Z, tz=null)"],
       "rider-experience", "eu-west-1", "high", deployment=dep("rider-api-2025.37.0", "2025.37.0", 28),
       started=20, runbook="argocd-pin-previous-revision",
       outcome=out(25,
                   "2025.37.0 compared campaign windows using a timezone field that is null for campaigns created "
                   "before August.",
                   "Ran argocd-pin-previous-revision to 2025.36.2; promo validation normal again.",
                   [(ran("argocd-pin-previous-revision"), "succeeded")], "joana.p",
                   "argocd-pin-previous-revision"))

report("dx-0059", "2025-09-16T09:45", "MESH", "dispatch-matcher",
       "Matcher calls to notification-svc failing with 503 UF",
       "dispatch-matcher logs about 3% failures sending 'driver assigned' notifications since 10:20, all Envoy 503 "
       "with flag UF. The upstream IPs don't match any current notification-svc pod. notification-svc itself "
       "looks healthy.",
       ["upstream-503", "notification-delays"],
       ["\"POST /v1/notify HTTP/1.1\" 503 UF upstream_host=10.42.9.214:8080 "
        "outbound|8080||notification-svc.comms.svc.cluster.local"],
       "dispatch", "eu-west-1", "medium", started=25, runbook="mesh-restart-istiod",
       outcome=out(30,
                   "istiod's endpoint view went stale again after an EKS control plane version update.",
                   "Ran mesh-restart-istiod; 503s stopped within a minute.",
                   [(ran("mesh-restart-istiod"), "succeeded")], "tkowal", "mesh-restart-istiod"))

report("dx-0060", "2025-09-22T12:05", "PGLOAD", "payments-adapter",
       "payments-adapter waiting on orders-db connections after this morning's scale-up",
       "We scaled payments-adapter from 8 to 20 pods this morning for the new payment-retry worker. During the "
       "lunch peak its connection acquire time went to 1-2 s and PgBouncer shows about 180 clients waiting on the "
       "orders database. Postgres is at 45% of max_connections and 50% CPU; idle-in-transaction sessions are at 2.",
       ["connection-pool-exhausted", "latency-spike"],
       ["WARN DataSource - connection acquire took 1840ms pool=orders active=10/10 waiting=46"],
       "payments", "eu-west-1", "medium", deployment=dep("payments-adapter-2025.38.1", "2025.38.1", 190),
       started=30, runbook="pgbouncer-raise-pool",
       outcome=out(30,
                   "More client pods shared the same per-database server pool; the pool was too small for the new "
                   "client count while Postgres had headroom.",
                   "Ran pgbouncer-raise-pool from 180 to 220; acquire time back to 5 ms.",
                   [(ran("pgbouncer-raise-pool"), "succeeded")], "priya", "pgbouncer-raise-pool"))

report("dx-0061", "2025-09-27T18:10", "MAPBUILD", "dispatch-matcher",
       "Couriers assigned to far pickups in São Paulo after today's tiles",
       "Since about 14:30 the matcher picks couriers 4-6 km away while closer ones sit idle. ETAs from maps-eta for "
       "short hops in Pinheiros and Vila Madalena come back 3-4x what drivers actually take.",
       ["eta-inaccurate", "courier-assignment-delay"],
       ["WARN CandidateRanker - eta outlier ratio 3.8 zone=sp-88a8100 tiles=2025-09-27.1"],
       "dispatch", "sa-east-1", "high", deployment=dep("valhalla-tiles-2025-09-27-sa", "2025-09-27.1", 95),
       started=40, runbook="valhalla-pin-tile-build",
       outcome=out(40,
                   "The 2025-09-27 tile build applied residential speeds to arterial roads after an upstream OSM tag "
                   "change.",
                   "Ran valhalla-pin-tile-build back to 2025-09-26.1; ETAs normal after the routers reloaded.",
                   [(ran("valhalla-pin-tile-build"), "succeeded")], "gustavo.l", "valhalla-pin-tile-build"))

# ---- 2025-10 ---------------------------------------------------------------
page("dx-0062", "2025-10-03T08:30", "SURGELEASE", "pricing-engine", "SurgeMultiplierStale",
     "surge multipliers not recomputed for 15m (eu-west-1)", Q_SURGE, 930, "marketplace", "eu-west-1", "high",
     "surge-stale", runbook="pricing-reset-surge-leader",
     outcome=out(25,
                 "The lease holder sat on a node whose kubelet hung after a containerd upgrade.",
                 "Ran pricing-reset-surge-leader; multipliers updating again within 15 s.",
                 [(ran("pricing-reset-surge-leader"), "succeeded")], "yuki", "pricing-reset-surge-leader"))

page("dx-0063", "2025-10-09T12:40", "GEOSTALL", "redis-geo", "MemoryDBShardReadLatencyHigh",
     "shard 0002 primary read latency p99 410ms (threshold 50ms)", Q_MDBLAT, 410230, "data-platform",
     "eu-west-1", "high", "redis-timeouts", runbook="memorydb-failover-shard", extra_labels={"shard": "0002"},
     outcome=out(30,
                 "Shard 0002's primary node was on an impaired host; its replicas answered normally.",
                 "Ran memorydb-failover-shard for shard 0002; read latency back to 1 ms.",
                 [(ran("memorydb-failover-shard"), "succeeded")], "dmitri", "memorydb-failover-shard"))

page("dx-0064", "2025-10-15T19:55", "POS", "merchant-api", "MerchantPosDeliveryFailing",
     "orders to POS partner brasa-grill failing 88% for 10m", Q_POS, 0.88, "merchant", "eu-west-1", "high",
     "pos-delivery-failures", runbook=None, extra_labels={"partner": "brasa-grill"},
     outcome=out(140,
                 "Regional outage of the partner's POS cloud provider.",
                 "Switched the chain to tablet fallback and followed the partner's status page; switched back at "
                 "23:00 when their API recovered.",
                 [("switch brasa-grill to tablet fallback in the merchant admin", "succeeded")], "sofia.r"))

page("dx-0065", "2025-10-21T10:15", "KISR", "kafka-events", "KafkaUnderReplicatedPartitions",
     "44 under-replicated partitions on broker 2 for 10m", Q_URP, 44, "data-platform", "eu-west-1", "high",
     "under-replicated-partitions", runbook="kafka-move-leaders-off-broker", extra_labels={"broker": "2"},
     outcome=out(35,
                 "Broker 2's volume throughput saturated during a large topic backfill for the analytics team.",
                 "Ran kafka-move-leaders-off-broker for broker 2 and throttled the backfill; ISR recovered.",
                 [(ran("kafka-move-leaders-off-broker"), "succeeded")], "marta",
                 "kafka-move-leaders-off-broker"))

report("dx-0066", "2025-10-28T12:35", "PGIDLE", "rider-api",
       "Order placement timing out at lunch; PgBouncer queue full",
       "Since 12:10 around 12% of order placements in Lisbon time out. PgBouncer shows 350 clients waiting, "
       "Postgres is at max_connections, and pg_stat_activity lists about 200 sessions idle in transaction from "
       "the loyalty-points sync.",
       ["db-timeouts", "connection-pool-exhausted", "checkout-failures"],
       ["ERROR OrderRepository - could not obtain connection: pool timeout 3000ms"],
       "rider-experience", "eu-west-1", "critical", started=25, runbook="orders-db-terminate-idle-tx",
       outcome=out(30,
                   "The loyalty-points sync held transactions open while calling the partner loyalty API, which had "
                   "slowed to 30 s per call.",
                   "Ran orders-db-terminate-idle-tx for role loyalty_sync; order placement normal within 2 minutes.",
                   [(ran("orders-db-terminate-idle-tx"), "succeeded")], "priya", "orders-db-terminate-idle-tx"))

# ---- 2025-11 / 12 ----------------------------------------------------------
page("dx-0067", "2025-11-05T19:20", "INGCONN", "driver-ingest", "DriverIngestSocketsNearLimit",
     "busiest pod at 31.6k websockets (limit 32k)", Q_SOCKETS, 0.988, "driver-platform", "eu-west-1", "high",
     "connection-limit", runbook="driver-ingest-scale-out", for_min=5,
     outcome=out(25,
                 "Autumn driver promotion in Lisbon; online drivers up 20%, pods at the socket cap.",
                 "Ran driver-ingest-scale-out from 16 to 22 pods.",
                 [(ran("driver-ingest-scale-out"), "succeeded")], "leo", "driver-ingest-scale-out"))

page("dx-0068", "2025-11-14T16:30", "MAPBUILD", "maps-eta", "EtaNoRouteRatioHigh",
     "no-route responses 3.7% > 1% for 10m (sa-east-1)", Q_NOROUTE, 0.037, "geo", "sa-east-1", "high",
     "no-route", deployment=dep("valhalla-tiles-2025-11-14-sa", "2025-11-14.1", 85),
     runbook="valhalla-pin-tile-build",
     outcome=out(35,
                 "The tile build ran on a partially downloaded OSM extract for southern Brazil.",
                 "Ran valhalla-pin-tile-build back to 2025-11-13.1; no-route normal.",
                 [(ran("valhalla-pin-tile-build"), "succeeded")], "gustavo.l", "valhalla-pin-tile-build"))

report("dx-0069", "2025-12-04T19:10", "POS", "merchant-api",
       "Brasa Grill orders not reaching the kitchens again",
       "Merchant support: Brasa Grill restaurants say nothing has printed since about 18:50. Our POS pushes to "
       "the chain return HTTP 503 from their side; 61 orders are queued for retry.",
       ["pos-delivery-failures", "orders-stuck"],
       ["WARN PosPushWorker - partner=brasa-grill push failed: HTTP 503 Service Unavailable (attempt 4/6)"],
       "merchant", "eu-west-1", "high", source="support-escalation", started=20, runbook=None,
       outcome=None)  # still open at the end of the history

# --------------------------------------------------------------------------
# Answer key
# --------------------------------------------------------------------------
RESOLVED = {}   # name -> outcome time
FAILED = {}     # name -> runbooks whose action failed

for inc in INCIDENTS:
    o = inc["outcome"]
    if o:
        RESOLVED[inc["name"]] = inc["at"] + timedelta(minutes=o["after"])
        FAILED[inc["name"]] = {m.group(1) for a in o["actions"] if a["result"] == "failed"
                               for m in [re.match(r"run runbook (\S+)$", a["action"])] if m}


def in_catalog(name, at):
    return name in CATALOG and CATALOG[name] <= at


names = [i["name"] for i in INCIDENTS]
assert names == [f"dx-{n:04d}" for n in range(1, len(INCIDENTS) + 1)], names
assert all(a["at"] < b["at"] for a, b in zip(INCIDENTS, INCIDENTS[1:])), "incidents out of order"

for inc in INCIDENTS:
    at = inc["at"]
    earlier = [p for p in INCIDENTS if p["at"] < at and p["fam"] == inc["fam"]
               and p["name"] in RESOLVED and RESOLVED[p["name"]] < at]
    precedents = [p["name"] for p in sorted(earlier, key=lambda p: p["at"], reverse=True)]
    rb = inc["runbook"]
    if rb is not None:
        assert in_catalog(rb, at), (inc["name"], rb)
        assert rb not in STALE or STALE[rb] > at, (inc["name"], rb, "stale")
    unsafe = {r for r, t in STALE.items() if t <= at}
    for p in earlier:
        unsafe |= FAILED[p["name"]]
    unsafe.discard(rb)
    unsafe = sorted(u for u in unsafe if in_catalog(u, at))
    inc["truth"] = {"precedents": precedents, "runbook": rb, "novel": not precedents,
                    "unsafeRunbooks": unsafe}
    emit(at, {"at": iso(at), "type": "incident",
              "object": {"apiVersion": API, "kind": "Incident", "metadata": {"name": inc["name"]},
                         "spec": inc["spec"]},
              "truth": inc["truth"]})
    o = inc["outcome"]
    if o:
        res = {"rootCause": o["rootCause"], "summary": o["summary"]}
        if o["runbook"]:
            assert in_catalog(o["runbook"], RESOLVED[inc["name"]]), (inc["name"], o["runbook"])
            res["runbook"] = o["runbook"]
        res["actions"] = o["actions"]
        res["confirmedBy"] = o["confirmedBy"]
        emit(RESOLVED[inc["name"]], {"at": iso(RESOLVED[inc["name"]]), "type": "outcome",
                                     "incident": inc["name"], "resolution": res})

# --------------------------------------------------------------------------
# Lint the incident text and write
# --------------------------------------------------------------------------
TAG = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
BANNED = list(RB) + ["runbook", "rollback", "revert", "promote", "failover", "fail over", "terminate",
                     "istiod", "haversine", "demote"]
for inc in INCIDENTS:
    s = inc["spec"]
    for tag in s["symptoms"]:
        assert TAG.match(tag), (inc["name"], tag)
    if inc["style"] == "page":
        assert len(s["symptoms"]) <= 1 and len(s["errorSignatures"]) == 1
        assert len(s["description"].split()) <= 15, (inc["name"], s["description"])
    else:
        assert 1 <= len(s["symptoms"]) <= 4 and 1 <= len(s["errorSignatures"]) <= 3, inc["name"]
    text = " ".join([s["title"], s.get("description", "")] + s["errorSignatures"]).lower()
    for w in BANNED:
        assert w.lower() not in text, (inc["name"], w)
    started = datetime.strptime(s["startedAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert timedelta(0) < inc["at"] - started <= timedelta(minutes=100), inc["name"]

EVENTS.sort(key=lambda e: (e[0], e[1]))
with OUT.open("w") as f:
    for _, _, ev in EVENTS:
        f.write(json.dumps(ev, ensure_ascii=False) + "\n")

# summary
n = len(INCIDENTS)
pages = sum(i["style"] == "page" for i in INCIDENTS)
novel = [i["name"] for i in INCIDENTS if i["truth"]["novel"]]
print(f"{len(EVENTS)} events, {n} incidents ({pages} pages, {n - pages} reports), "
      f"{len(RESOLVED)} outcomes, {len(CATALOG)} runbooks")
print(f"novel {len(novel)} ({100 * len(novel) / n:.1f}%): {' '.join(novel)}")
print(f"with unsafe: {sum(bool(i['truth']['unsafeRunbooks']) for i in INCIDENTS)}; "
      f"runbook null: {sum(i['truth']['runbook'] is None for i in INCIDENTS)}")
