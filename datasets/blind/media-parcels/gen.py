"""Build the Larkspur Group incident history (news/video + parcels on one platform).

Run with any Python 3.9+; writes history.jsonl next to this file.
The answer key is derived from the structured data below:
  precedents  = earlier incidents of the same family whose outcome is recorded
                before the new incident, most recent first
  novel       = no precedents
  unsafe      = runbooks made stale by a migration (for the migrated service's
                families and its own pages), runbooks whose action failed in an
                earlier resolved incident of the same family (unless it is the
                right runbook now), and the look-alike of a designed trap
"""
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

API = "recall.dev/v1alpha1"
CLUSTER = "prod-euw1"

# ---------------------------------------------------------------- topology
TOPOLOGY = {
    "api-gateway": ["tracking-api", "label-service", "recs-api", "cms-api",
                    "license-server", "scan-ingest", "cluster-dns"],
    "origin-shield": ["video-packager", "cms-api", "cluster-dns"],
    "video-packager": ["license-server", "cluster-dns"],
    "license-server": ["postgres-shared", "cluster-dns"],
    "recs-api": ["elasticsearch", "cluster-dns"],
    "cms-api": ["postgres-shared", "elasticsearch", "rabbitmq", "cluster-dns"],
    "tracking-api": ["postgres-shared", "elasticsearch", "rabbitmq", "cluster-dns"],
    "route-planner": ["postgres-shared", "rabbitmq", "cluster-dns"],
    "scan-ingest": ["rabbitmq", "cluster-dns"],
    "label-service": ["postgres-shared", "rabbitmq", "cluster-dns"],
    "cert-manager": ["cluster-dns"],
    "postgres-shared": [],
    "elasticsearch": [],
    "rabbitmq": [],
    "cluster-dns": [],
}


def step(name, image, command, dry, undo, risk, blast, seconds):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": undo, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": seconds}


KUBECTL = "bitnami/kubectl:1.30"
ES = "http://es-http.search.svc:9200"
AURORA = ("host=larkspur-shared.cluster-c8xk2m.eu-west-1.rds.amazonaws.com "
          "dbname=larkspur user=ops_admin sslmode=require")
IDLE_SQL = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE state = 'idle in transaction' AND state_change < now() - interval '60 seconds'")
IDLE_LIST = ("SELECT pid, usename, application_name, now() - state_change AS idle_for "
             "FROM pg_stat_activity WHERE state = 'idle in transaction' ORDER BY idle_for DESC")
RMQ = ["kubectl", "-n", "messaging", "exec", "rabbitmq-$(ORDINAL)", "--"]

RUNBOOKS = {
    "helm-rollback-release": {
        "title": "Roll a Helm release back to its previous revision",
        "services": ["recs-api", "tracking-api", "cms-api", "label-service", "route-planner",
                     "video-packager", "license-server", "scan-ingest"],
        "symptoms": ["5xx", "latency-spike", "oom-kill", "crash-loop", "error-rate"],
        "steps": [step("helm-rollback", "alpine/helm:3.15.4",
                       ["helm", "rollback", "$(RELEASE)", "0", "-n", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
                       ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"],
                       ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "-n", "$(NAMESPACE)", "--wait"],
                       "medium", "one service, pods replaced one at a time", 300)],
    },
    "restart-deployment": {
        "title": "Rolling restart of one deployment",
        "services": ["recs-api", "tracking-api", "cms-api", "label-service", "route-planner",
                     "license-server", "scan-ingest", "api-gateway"],
        "symptoms": ["memory-pressure", "error-rate", "crash-loop"],
        "steps": [step("rollout-restart", KUBECTL,
                       ["kubectl", "-n", "$(NAMESPACE)", "rollout", "restart", "deployment/$(DEPLOYMENT)"],
                       ["kubectl", "-n", "$(NAMESPACE)", "get", "deployment/$(DEPLOYMENT)", "-o", "wide"],
                       [], "low", "one deployment, one pod at a time", 180)],
    },
    "coredns-scale-out": {
        "title": "Add CoreDNS replicas and lift its CPU limit",
        "services": ["cluster-dns"],
        "symptoms": ["dns-failure", "timeouts", "latency-spike"],
        "steps": [
            step("scale-coredns", KUBECTL,
                 ["kubectl", "-n", "kube-system", "scale", "deployment/coredns", "--replicas=$(REPLICAS)"],
                 ["kubectl", "-n", "kube-system", "top", "pods", "-l", "k8s-app=kube-dns"],
                 ["kubectl", "-n", "kube-system", "scale", "deployment/coredns", "--replicas=$(PREVIOUS_REPLICAS)"],
                 "low", "cluster DNS for every workload, new pods added beside the old", 90),
            step("raise-cpu-limit", KUBECTL,
                 ["kubectl", "-n", "kube-system", "set", "resources", "deployment/coredns", "-c", "coredns",
                  "--limits=cpu=1", "--requests=cpu=250m"],
                 ["kubectl", "-n", "kube-system", "get", "deployment/coredns", "-o",
                  "jsonpath={.spec.template.spec.containers[0].resources}"],
                 ["kubectl", "-n", "kube-system", "set", "resources", "deployment/coredns", "-c", "coredns",
                  "--limits=cpu=$(PREVIOUS_CPU_LIMIT)"],
                 "low", "CoreDNS pods restarted one at a time", 120),
        ],
    },
    "tracking-scale-event-consumers": {
        "title": "Raise the floor of the tracking-events consumers",
        "services": ["tracking-api", "rabbitmq"],
        "symptoms": ["queue-backlog", "publisher-blocked", "scans-delayed"],
        "steps": [
            step("raise-keda-floor", KUBECTL,
                 ["kubectl", "-n", "parcel", "patch", "scaledobject", "tracking-events", "--type", "merge", "-p",
                  "{\"spec\":{\"minReplicaCount\":$(MIN_REPLICAS),\"maxReplicaCount\":$(MAX_REPLICAS)}}"],
                 ["kubectl", "-n", "parcel", "get", "scaledobject", "tracking-events", "-o",
                  "jsonpath={.spec.minReplicaCount} {.spec.maxReplicaCount} {.status.conditions}"],
                 ["kubectl", "-n", "parcel", "patch", "scaledobject", "tracking-events", "--type", "merge", "-p",
                  "{\"spec\":{\"minReplicaCount\":$(PREVIOUS_MIN),\"maxReplicaCount\":$(PREVIOUS_MAX)}}"],
                 "low", "tracking-api event workers; more connections to postgres-shared", 120),
            step("watch-alarm", "rabbitmq:3.13-management",
                 RMQ + ["rabbitmq-diagnostics", "alarms"],
                 RMQ + ["rabbitmqctl", "list_queues", "name", "messages_ready", "consumers"],
                 [], "low", "read only", 600),
        ],
    },
    "rabbitmq-sync-mirrored-queues": {
        "title": "Bring back a classic mirrored queue that lost its master",
        "services": ["rabbitmq"],
        "symptoms": ["queue-unavailable", "jobs-stuck"],
        "steps": [
            step("start-app", "rabbitmq:3.12-management",
                 RMQ + ["rabbitmqctl", "start_app"],
                 RMQ + ["rabbitmqctl", "list_queues", "name", "pid", "slave_pids", "synchronised_slave_pids"],
                 RMQ + ["rabbitmqctl", "stop_app"],
                 "medium", "one RabbitMQ node rejoins the cluster", 60),
            step("sync-queue", "rabbitmq:3.12-management",
                 RMQ + ["rabbitmqctl", "sync_queue", "-p", "/", "$(QUEUE)"],
                 RMQ + ["rabbitmqctl", "list_queues", "-p", "/", "name", "messages", "synchronised_slave_pids"],
                 RMQ + ["rabbitmqctl", "cancel_sync_queue", "-p", "/", "$(QUEUE)"],
                 "medium", "one queue; its publishers and consumers pause while it syncs", 300),
        ],
    },
    "pgbouncer-kill-idle-transactions": {
        "title": "Free PgBouncer server connections held by idle transactions",
        "services": ["postgres-shared"],
        "symptoms": ["connection-pool-exhausted", "timeouts"],
        "steps": [
            step("terminate-idle-in-transaction", "postgres:14",
                 ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-h", "pg-primary.data.svc",
                  "-U", "ops_admin", "-d", "larkspur", "-c", IDLE_SQL],
                 ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-h", "pg-primary.data.svc",
                  "-U", "ops_admin", "-d", "larkspur", "-c", IDLE_LIST],
                 [], "medium", "sessions idle in a transaction for over a minute; their work is lost", 30),
            step("pgbouncer-reconnect", "postgres:14",
                 ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-p", "6432", "-U",
                  "pgbouncer", "pgbouncer", "-c", "RECONNECT larkspur"],
                 ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-p", "6432", "-U",
                  "pgbouncer", "pgbouncer", "-c", "SHOW POOLS"],
                 [], "low", "server connections of the larkspur pool are recycled as they free up", 30),
        ],
    },
    "packager-restart-live-workers": {
        "title": "Rolling restart of the live packager workers",
        "services": ["video-packager"],
        "symptoms": ["rebuffering", "latency-spike", "memory-pressure"],
        "steps": [step("restart-packager-live", KUBECTL,
                       ["kubectl", "-n", "media", "rollout", "restart", "statefulset/packager-live"],
                       ["kubectl", "-n", "media", "top", "pods", "-l", "app=packager-live"],
                       [], "medium", "viewers on the restarting pod re-fetch playlists; one pod at a time", 420)],
    },
    "route-planner-scale-solvers": {
        "title": "Add solver workers for the nightly route plan",
        "services": ["route-planner"],
        "symptoms": ["missed-cutoff", "high-cpu"],
        "steps": [step("scale-solvers", KUBECTL,
                       ["kubectl", "-n", "routing", "scale", "deployment/solver", "--replicas=$(REPLICAS)"],
                       ["kubectl", "-n", "routing", "get", "deployment/solver", "-o", "wide"],
                       ["kubectl", "-n", "routing", "scale", "deployment/solver", "--replicas=$(PREVIOUS_REPLICAS)"],
                       "low", "routing node pool; more matrix calls to the maps provider", 240)],
    },
    "origin-shield-rolling-restart": {
        "title": "Restart origin shield pods one at a time",
        "services": ["origin-shield"],
        "symptoms": ["5xx", "memory-pressure"],
        "steps": [step("restart-shield", KUBECTL,
                       ["kubectl", "-n", "edge", "rollout", "restart", "statefulset/origin-shield"],
                       ["kubectl", "-n", "edge", "exec", "origin-shield-0", "--", "varnishstat", "-1",
                        "-f", "MAIN.n_lru_nuked", "-f", "MAIN.n_lru_limited", "-f", "SMA.s0.g_space"],
                       [], "medium", "one shield pod's cache emptied at a time; origin load rises", 600)],
    },
    "cert-manager-force-renewal": {
        "title": "Get cert-manager to issue a certificate again and reload its consumer",
        "services": ["cert-manager", "api-gateway", "origin-shield", "scan-ingest"],
        "symptoms": ["cert-expired", "tls-error"],
        "steps": [
            step("restart-controller", KUBECTL,
                 ["kubectl", "-n", "cert-manager", "rollout", "restart", "deployment/cert-manager"],
                 ["kubectl", "-n", "cert-manager", "get", "challenges,orders", "-A"],
                 [], "low", "cert-manager controller only", 60),
            step("issue-again", "quay.io/jetstack/cmctl:2.1.1",
                 ["cmctl", "renew", "-n", "$(NAMESPACE)", "$(CERTIFICATE)"],
                 ["cmctl", "status", "certificate", "-n", "$(NAMESPACE)", "$(CERTIFICATE)"],
                 [], "low", "one Certificate and its secret", 180),
            step("reload-consumer", KUBECTL,
                 ["kubectl", "-n", "$(NAMESPACE)", "rollout", "restart", "$(CONSUMER)"],
                 ["kubectl", "-n", "$(NAMESPACE)", "get", "secret", "$(CERTIFICATE)", "-o",
                  "jsonpath={.metadata.annotations.cert-manager\\.io/certificate-name}"],
                 [], "medium", "the workload serving the certificate, one pod at a time", 300),
        ],
    },
    "es-clear-fielddata-cache": {
        "title": "Clear Elasticsearch fielddata and switch it off on the offending field",
        "services": ["elasticsearch"],
        "symptoms": ["circuit-breaker", "memory-pressure"],
        "steps": [
            step("clear-fielddata", "curlimages/curl:8.8.0",
                 ["curl", "-s", "-X", "POST", ES + "/_cache/clear?fielddata=true"],
                 ["curl", "-s", ES + "/_cat/fielddata?v&s=size:desc"],
                 [], "low", "fielddata on every node; the next aggregations are slower", 30),
            step("disable-fielddata", "curlimages/curl:8.8.0",
                 ["curl", "-s", "-X", "PUT", ES + "/$(INDEX)/_mapping", "-H", "Content-Type: application/json",
                  "-d", "{\"properties\":{\"$(FIELD)\":{\"type\":\"text\",\"fielddata\":false}}}"],
                 ["curl", "-s", ES + "/$(INDEX)/_mapping/field/$(FIELD)"],
                 ["curl", "-s", "-X", "PUT", ES + "/$(INDEX)/_mapping", "-H", "Content-Type: application/json",
                  "-d", "{\"properties\":{\"$(FIELD)\":{\"type\":\"text\",\"fielddata\":true}}}"],
                 "medium", "dashboards aggregating on that text field stop working", 30),
        ],
    },
    "es-clear-readonly-block": {
        "title": "Free Elasticsearch disk and lift the flood-stage read-only block",
        "services": ["elasticsearch"],
        "symptoms": ["read-only-index", "disk-full"],
        "steps": [
            step("delete-expired-indices", "curlimages/curl:8.8.0",
                 ["curl", "-s", "-X", "DELETE", ES + "/$(EXPIRED_INDICES)"],
                 ["curl", "-s", ES + "/_cat/indices/$(EXPIRED_INDICES)?v&h=index,creation.date.string,store.size"],
                 ["curl", "-s", "-X", "POST", ES + "/_snapshot/s3-backups/$(SNAPSHOT)/_restore", "-H",
                  "Content-Type: application/json", "-d", "{\"indices\":\"$(EXPIRED_INDICES)\"}"],
                 "high", "indices past their retention, listed by the dry run", 120),
            step("lift-block", "curlimages/curl:8.8.0",
                 ["curl", "-s", "-X", "PUT", ES + "/_all/_settings", "-H", "Content-Type: application/json",
                  "-d", "{\"index.blocks.read_only_allow_delete\":null}"],
                 ["curl", "-s", ES + "/_cat/allocation?v"],
                 [], "low", "all indices accept writes again", 20),
        ],
    },
    "mosquitto-expire-stale-sessions": {
        "title": "Drop stale persistent MQTT sessions from a scanner broker",
        "services": ["scan-ingest"],
        "symptoms": ["device-disconnects", "oom-kill", "memory-pressure"],
        "steps": [
            step("prune-sessions", "registry.larkspur.internal/parcel/session-janitor:0.6.2",
                 ["kubectl", "-n", "parcel", "exec", "scan-ingest-mqtt-$(ORDINAL)", "--", "session-janitor",
                  "prune", "--db", "/mosquitto/data/mosquitto.db", "--idle-longer-than", "72h"],
                 ["kubectl", "-n", "parcel", "exec", "scan-ingest-mqtt-$(ORDINAL)", "--", "session-janitor",
                  "prune", "--db", "/mosquitto/data/mosquitto.db", "--idle-longer-than", "72h", "--dry-run"],
                 ["kubectl", "-n", "parcel", "exec", "scan-ingest-mqtt-$(ORDINAL)", "--", "session-janitor",
                  "restore", "--from", "/mosquitto/data/mosquitto.db.bak"],
                 "medium", "scanners offline for more than 72h lose queued config messages", 90),
            step("reload-broker", KUBECTL,
                 ["kubectl", "-n", "parcel", "delete", "pod", "scan-ingest-mqtt-$(ORDINAL)"],
                 ["kubectl", "-n", "parcel", "top", "pod", "scan-ingest-mqtt-$(ORDINAL)"],
                 [], "medium", "every scanner on that broker reconnects once", 120),
        ],
    },
    "label-sync-carrier-credentials": {
        "title": "Pull rotated carrier API credentials from Vault into label-service",
        "services": ["label-service"],
        "symptoms": ["auth-failure", "401"],
        "steps": [
            step("force-externalsecret-sync", KUBECTL,
                 ["kubectl", "-n", "parcel", "annotate", "externalsecret", "carrier-$(CARRIER)",
                  "force-sync=$(TIMESTAMP)", "--overwrite"],
                 ["kubectl", "-n", "parcel", "get", "externalsecret", "carrier-$(CARRIER)", "-o",
                  "jsonpath={.status.refreshTime} {.status.conditions[0].reason}"],
                 [], "low", "the carrier's Kubernetes secret", 30),
            step("restart-label-service", KUBECTL,
                 ["kubectl", "-n", "parcel", "rollout", "restart", "deployment/label-service"],
                 ["kubectl", "-n", "parcel", "get", "deployment/label-service"],
                 [], "low", "label-service pods, one at a time; queued label jobs wait", 180),
        ],
    },
    "api-gateway-refresh-upstreams": {
        "title": "Reload Kong workers so upstream targets are resolved again",
        "services": ["api-gateway"],
        "symptoms": ["502", "connection-refused"],
        "steps": [step("kong-reload-all", "registry.larkspur.internal/edge/kong-tools:3.6",
                       ["kong-fleet", "--namespace", "edge", "reload"],
                       ["kong-fleet", "--namespace", "edge", "upstream-health", "$(UPSTREAM)"],
                       [], "low", "every gateway pod reloads its workers; idle keep-alives drop", 60)],
    },
}

LATER_RUNBOOKS = {
    "route-planner-use-snapshot-matrix": {
        "title": "Run the nightly plan on the last good travel-time matrix snapshot",
        "services": ["route-planner"],
        "symptoms": ["missed-cutoff", "timeouts"],
        "steps": [
            step("use-snapshot", KUBECTL,
                 ["kubectl", "-n", "routing", "set", "env", "deployment/solver", "MATRIX_SOURCE=snapshot",
                  "MATRIX_SNAPSHOT_DATE=$(DATE)"],
                 ["kubectl", "-n", "routing", "exec", "deploy/solver", "--", "planctl", "matrix", "snapshots",
                  "--last", "3"],
                 ["kubectl", "-n", "routing", "set", "env", "deployment/solver", "MATRIX_SOURCE=live"],
                 "medium", "tonight's routes use yesterday's travel times", 120),
            step("rerun-group", KUBECTL,
                 ["kubectl", "-n", "routing", "exec", "deploy/solver", "--", "planctl", "rerun",
                  "--depot-group", "$(DEPOT_GROUP)"],
                 ["kubectl", "-n", "routing", "exec", "deploy/solver", "--", "planctl", "status",
                  "--depot-group", "$(DEPOT_GROUP)"],
                 [], "low", "one depot group's plan", 900),
        ],
    },
    "origin-shield-ban-live-manifests": {
        "title": "Ban cached live playlists on every shield pod and stop grace for them",
        "services": ["origin-shield"],
        "symptoms": ["stale-manifest", "rebuffering"],
        "steps": [
            step("ban-playlists", "registry.larkspur.internal/edge/varnish-tools:1.4",
                 ["varnish-fleet", "--namespace", "edge", "ban", "req.url ~ \"^/live/.*\\.m3u8\""],
                 ["varnish-fleet", "--namespace", "edge", "exec", "varnishadm", "backend.list"],
                 [], "low", "live playlists only; segments stay cached", 20),
            step("use-live-nograce-vcl", "registry.larkspur.internal/edge/varnish-tools:1.4",
                 ["varnish-fleet", "--namespace", "edge", "exec", "varnishadm", "vcl.use", "live-nograce"],
                 ["varnish-fleet", "--namespace", "edge", "exec", "varnishadm", "vcl.list"],
                 ["varnish-fleet", "--namespace", "edge", "exec", "varnishadm", "vcl.use", "$(PREVIOUS_VCL)"],
                 "medium", "all shield pods; live playlists are never served from grace", 30),
        ],
    },
    "rabbitmq-quorum-grow-members": {
        "title": "Rebuild quorum queue membership after RabbitMQ nodes were replaced",
        "services": ["rabbitmq"],
        "symptoms": ["queue-unavailable", "jobs-stuck"],
        "steps": [
            step("shrink-to-survivor", "rabbitmq:4.0-management",
                 RMQ + ["rabbitmq-queues", "force_shrink_member_to_current_member", "/", "$(QUEUE)"],
                 RMQ + ["rabbitmq-queues", "quorum_status", "$(QUEUE)", "--vhost", "/"],
                 [], "high", "one queue; messages not on the surviving member are lost", 30),
            step("grow-members", "rabbitmq:4.0-management",
                 RMQ + ["rabbitmq-queues", "grow", "rabbit@$(NEW_NODE)", "all", "--vhost-pattern", "/",
                        "--queue-pattern", "$(QUEUE)"],
                 RMQ + ["rabbitmqctl", "cluster_status"],
                 RMQ + ["rabbitmq-queues", "shrink", "rabbit@$(NEW_NODE)"],
                 "medium", "the queue's replicas catch up from the leader", 240),
        ],
    },
    "aurora-terminate-idle-sessions": {
        "title": "End idle-in-transaction sessions on the Aurora writer",
        "services": ["postgres-shared"],
        "symptoms": ["connection-pool-exhausted", "timeouts"],
        "steps": [
            step("terminate-idle-in-transaction", "postgres:16",
                 ["psql", AURORA, "-c", IDLE_SQL],
                 ["psql", AURORA, "-c", IDLE_LIST],
                 [], "medium", "sessions idle in a transaction for over a minute; their work is lost", 30),
            step("cap-idle-transactions", "postgres:16",
                 ["psql", AURORA, "-c", "ALTER ROLE $(ROLE) SET idle_in_transaction_session_timeout = '90s'"],
                 ["psql", AURORA, "-c", "SELECT rolname, rolconfig FROM pg_roles WHERE rolname = '$(ROLE)'"],
                 ["psql", AURORA, "-c", "ALTER ROLE $(ROLE) RESET idle_in_transaction_session_timeout"],
                 "low", "new sessions of one database role", 20),
        ],
    },
}
RUNBOOKS.update(LATER_RUNBOOKS)

DAY_ONE = ["helm-rollback-release", "restart-deployment", "coredns-scale-out",
           "tracking-scale-event-consumers", "rabbitmq-sync-mirrored-queues",
           "pgbouncer-kill-idle-transactions", "packager-restart-live-workers",
           "route-planner-scale-solvers", "origin-shield-rolling-restart"]

# runbooks added later: (at, name)
RUNBOOK_ADDED = [
    ("2024-11-15T10:00:00Z", "cert-manager-force-renewal"),
    ("2024-12-06T15:00:00Z", "es-clear-fielddata-cache"),
    ("2024-12-13T11:00:00Z", "mosquitto-expire-stale-sessions"),
    ("2024-12-18T10:00:00Z", "api-gateway-refresh-upstreams"),
    ("2025-01-13T14:00:00Z", "es-clear-readonly-block"),
    ("2025-02-21T11:00:00Z", "label-sync-carrier-credentials"),
    ("2025-03-04T10:00:00Z", "route-planner-use-snapshot-matrix"),
    ("2025-03-14T09:00:00Z", "origin-shield-ban-live-manifests"),
    ("2025-03-18T14:00:00Z", "rabbitmq-quorum-grow-members"),
    ("2025-06-10T10:00:00Z", "aurora-terminate-idle-sessions"),
]

MIGRATIONS = [
    {"at": "2025-03-22T06:00:00Z", "name": "rabbitmq-classic-mirrored-to-quorum",
     "families": ["RMQDOWN", "RMQALARM"],
     "spec": {"targetService": "rabbitmq", "migrationDate": "2025-03-22",
              "oldArch": "RabbitMQ 3.12, three nodes, classic queues mirrored by an ha-all policy "
                         "(ha-sync-mode manual, ha-promote-on-shutdown when-synced)",
              "newArch": "RabbitMQ 4.0, three nodes, every durable queue a quorum queue with three "
                         "members; classic mirroring no longer exists",
              "impactedRunbooks": ["rabbitmq-sync-mirrored-queues"],
              "impactedFixKeywords": ["sync_queue", "start_app", "mirrored queue", "ha-promote-on-shutdown"],
              "confidenceDeduction": 30}},
    {"at": "2025-06-14T05:00:00Z", "name": "postgres-shared-patroni-to-aurora",
     "families": ["PGCONN"],
     "spec": {"targetService": "postgres-shared", "migrationDate": "2025-06-14",
              "oldArch": "PostgreSQL 14 on EC2 managed by Patroni, a PgBouncer deployment "
                         "(transaction pooling) in front in the data namespace",
              "newArch": "Amazon Aurora PostgreSQL 16 behind RDS Proxy; the PgBouncer deployment and "
                         "the pg-primary service are gone",
              "impactedRunbooks": ["pgbouncer-kill-idle-transactions"],
              "impactedFixKeywords": ["pgbouncer", "SHOW POOLS", "RECONNECT", "pg-primary"],
              "confidenceDeduction": 35}},
]

CONTRADICTIONS = [
    {"at": "2025-03-04T10:05:00Z", "name": "route-plan-cutoff-misses",
     "topic": "nightly route plan misses the dispatch cut-off",
     "memories": ["RT1", "RT3"],
     "claims": [("RT1", "add solver workers; the plan was CPU-bound on a high-volume night"),
                ("RT3", "adding solvers made it worse; the solvers were waiting on 429s from the maps "
                        "provider and finished only on the matrix snapshot")],
     "state": {"state": "open"}},
    {"at": "2025-03-14T09:05:00Z", "name": "live-manifest-stalls",
     "topic": "live stream rebuffering and late playlists",
     "memories": ["L1", "L3"],
     "claims": [("L1", "a rolling restart of the live packager workers cleared the stalls"),
                ("L3", "restarting the packager changed nothing; the shield was serving stale playlists "
                       "from grace and a ban of cached playlists fixed it")],
     "state": {"state": "open"}},
    {"at": "2025-05-28T09:00:00Z", "name": "route-plan-cutoff-misses",
     "topic": "nightly route plan misses the dispatch cut-off",
     "memories": ["RT1", "RT2", "RT3", "RT4"],
     "claims": [("RT1", "add solver workers; the plan was CPU-bound on a high-volume night"),
                ("RT3", "adding solvers made it worse; the solvers were waiting on 429s from the maps "
                        "provider and finished only on the matrix snapshot")],
     "state": {"state": "reconciled",
               "note": "Both hold. Solver pods near their CPU limit with volume up: add solvers. Solvers "
                       "mostly idle while matrix calls get 429 or time out: run on the matrix snapshot and "
                       "do not add solvers, each new worker is one more client the provider throttles."}},
    {"at": "2025-08-05T10:00:00Z", "name": "live-manifest-stalls",
     "topic": "live stream rebuffering and late playlists",
     "memories": ["L1", "L3", "L4", "L5"],
     "claims": [("L1", "a rolling restart of the live packager workers cleared the stalls"),
                ("L3", "restarting the packager changed nothing; the shield was serving stale playlists "
                       "from grace and a ban of cached playlists fixed it")],
     "state": {"state": "reconciled",
               "note": "Both hold. Compare the playlist at the packager and at the shield. Packager slow "
                       "(render p99 over 1s, memory near the limit) with a small Age at the shield: restart "
                       "the live workers. Packager fast and current while the shield copy has a large Age "
                       "or an older media sequence: ban cached playlists and check the backend probe; a "
                       "packager restart then only adds a black screen."}},
]

# ---------------------------------------------------------------- incidents
# style "page": alert bridge; style "report": a person.
# actions: (text, result, runbook or None)


def page(alertname, team, severity, namespace):
    return {"source": "alertmanager", "alertname": alertname, "team": team, "severity": severity,
            "cluster": CLUSTER, "namespace": namespace}


def report(team, source, reporter):
    return {"team": team, "source": source, "reporter": reporter}


def dep(ident, revision, minutes):
    return {"id": ident, "revision": revision, "environment": "production", "minutesSinceDeploy": minutes}


INCIDENTS = [
    # ---------------- 2024-10
    dict(key="D1", fam="DNS", at="2024-10-03T07:42:00Z", started=22, service="tracking-api",
         severity="high", labels=report("parcel-platform", "oncall", "sanjay.p"),
         title="Tracking API throwing intermittent 500s - DNS errors in logs",
         description="Since about 07:20 roughly 4% of /v2/track calls return 500. The logs show lookups of "
                     "the Elasticsearch and PgBouncer service names failing with EAI_AGAIN, a few per second, "
                     "on every tracking pod rather than one node. CoreDNS pods sit at their 200m CPU limit and "
                     "are being throttled; the morning scanner wave started at 07:00. Nothing deployed to "
                     "tracking since Monday.",
         symptoms=["5xx", "dns-failure", "error-rate"],
         errors=["Error: getaddrinfo EAI_AGAIN es-http.search.svc.cluster.local",
                 "Error: getaddrinfo EAI_AGAIN pgbouncer.data.svc.cluster.local"],
         runbook="coredns-scale-out",
         outcome=dict(after=53, by="noor.h",
                      rootCause="CoreDNS had 2 replicas capped at 200m CPU; the scanner morning wave plus "
                                "ndots:5 search-path expansion multiplied queries about fivefold",
                      summary="Cluster-wide lookup timeouts, first seen by tracking-api. Restarting tracking "
                              "pods helped for a few minutes only. CoreDNS went from 2 to 6 replicas with a 1 "
                              "CPU limit and the EAI_AGAIN errors stopped within two minutes.",
                      runbook="coredns-scale-out",
                      actions=[("restart tracking-api pods", "partial", "restart-deployment"),
                               ("run runbook coredns-scale-out (6 replicas, 1 CPU limit)", "succeeded",
                                "coredns-scale-out")])),
    dict(key="R1", fam="REL", at="2024-10-10T13:25:00Z", started=20, service="recs-api",
         severity="medium", labels=report("media-platform", "slack", "kenji.w"),
         title="recs-api p99 way up since the 4.12.0 rollout",
         description="Rolled recs-api 4.12.0 at 13:02. Since then p99 on /v1/recs/home went from ~180ms to "
                     "2.4s and the 'For you' rail times out for a chunk of users (the page falls back to the "
                     "editorial rail so it still renders). Pods aren't restarting. The release changes the "
                     "candidate query and the ES slow log shows recs queries asking for size=500.",
         symptoms=["latency-spike", "timeouts"],
         errors=["WARN recs.candidates es query took 1874ms size=500 index=recs-items-v7"],
         deployment=dep("recs-api-4.12.0", "4.12.0", 23),
         runbook="helm-rollback-release",
         outcome=dict(after=33, by="kenji.w",
                      rootCause="recs-api 4.12.0 fetched 500 candidates per request instead of 50",
                      summary="A recs-api release made the candidate query ten times larger. Helm rollback "
                              "to 4.11.3 brought p99 back to 190ms; the query was fixed in 4.12.1.",
                      runbook="helm-rollback-release",
                      actions=[("run runbook helm-rollback-release on recs-api (to 4.11.3)", "succeeded",
                                "helm-rollback-release")])),
    dict(key="P1", fam="PGCONN", at="2024-10-21T18:07:00Z", started=12, service="license-server",
         severity="critical", labels=report("media-platform", "oncall", "aisha.r"),
         title="DRM license requests timing out - video won't start",
         description="From ~17:55 license-server p99 is at the 5s client timeout and about a third of playback "
                     "starts fail with a license error on web and Android. license-server pods are fine on "
                     "CPU and memory; every slow request is waiting on the entitlement lookup in Postgres. "
                     "PgBouncer SHOW POOLS for the larkspur database has cl_waiting in the hundreds and every "
                     "server connection active. No license-server deploy since last week.",
         symptoms=["timeouts", "playback-failure", "connection-pool-exhausted"],
         errors=["entitlements: pq: query_wait_timeout",
                 "license: request 5a1f03 failed after 5001ms: context deadline exceeded"],
         runbook="pgbouncer-kill-idle-transactions",
         outcome=dict(after=43, by="ruth.o",
                      rootCause="label-service's end-of-day manifest job held a transaction open per batch "
                                "while calling carrier APIs; about 70 sessions idle in transaction pinned "
                                "every PgBouncer server connection",
                      summary="Shared Postgres pool exhausted by idle-in-transaction sessions from a parcel "
                              "batch job, seen as DRM license timeouts on the video side. Terminating the idle "
                              "sessions and reconnecting the pool cleared it; the label team paused the job.",
                      runbook="pgbouncer-kill-idle-transactions",
                      actions=[("run runbook pgbouncer-kill-idle-transactions", "succeeded",
                                "pgbouncer-kill-idle-transactions"),
                               ("pause label-service manifest job", "succeeded", None)])),
    # ---------------- 2024-11
    dict(key="L1", fam="LIVE", cond="packager", at="2024-11-05T19:31:00Z", started=21, service="video-packager",
         severity="high", labels=report("media-platform", "oncall", "joel.b"),
         title="Live channel buffering, manifests slow from packager",
         description="News 24 live stream: lots of viewers rebuffering since about 19:10, players sit on the "
                     "last segment then catch up. Hitting the packager directly (bypassing the shield), the "
                     "live .m3u8 takes 2.5-4s to come back; normally 40ms. Packager memory has been creeping "
                     "all week and two of the four pods are at 3.7Gi of a 4Gi limit. Shield looks healthy, "
                     "Age on playlists is 0-2s.",
         symptoms=["rebuffering", "latency-spike", "memory-pressure"],
         errors=["live: manifest render channel=news24 rendition=720p took 3412ms"],
         runbook="packager-restart-live-workers",
         outcome=dict(after=44, by="joel.b",
                      rootCause="per-session timeline objects in the live packager were never freed after "
                                "viewers left; memory grew until GC dominated",
                      summary="Live packager leak made playlist renders slow. A rolling restart of the live "
                              "workers brought renders back to 40ms; leak fixed later in packager 2.8.3.",
                      runbook="packager-restart-live-workers",
                      actions=[("run runbook packager-restart-live-workers", "succeeded",
                                "packager-restart-live-workers")])),
    dict(key="C1", fam="CERT", at="2024-11-12T06:48:00Z", started=33, service="origin-shield",
         severity="critical", labels=report("media-platform", "support", "aisha.r"),
         title="Safari users can't play any video - certificate error on video host",
         description="Support has a wall of tickets since ~06:15: videos on the site and in the iOS app fail, "
                     "Safari says the connection isn't private for video.larkspur.example. Chrome users get it "
                     "too after a hard refresh. The certificate the shield serves has notAfter 2024-11-12 06:02 "
                     "UTC, so it expired this morning. Shield pods themselves are up and serving.",
         symptoms=["tls-error", "cert-expired", "playback-failure"],
         errors=["x509: certificate has expired or is not yet valid: current time 2024-11-12T06:40:11Z is "
                 "after 2024-11-12T06:02:00Z"],
         runbook=None,
         outcome=dict(after=172, by="noor.h",
                      rootCause="the Cloudflare API token used by cert-manager's DNS-01 solver expired on 12 "
                                "October; every challenge failed with 403 and video-larkspur-tls ran out",
                      summary="Expired video certificate because cert-manager could not complete DNS-01 "
                              "challenges for a month. Restarting the shield only reloaded the same expired "
                              "secret. A new token, deleting the failed orders and issuing the certificate "
                              "again fixed video; the edge and MQTT certificates were issued again too.",
                      runbook=None,
                      actions=[("run runbook origin-shield-rolling-restart", "failed",
                                "origin-shield-rolling-restart"),
                               ("replace Cloudflare token, delete failed Orders, cmctl renew "
                                "video-larkspur-tls, restart shield", "succeeded", None)])),
    dict(key="K1", fam="CARRIER", at="2024-11-19T10:14:00Z", started=16, service="label-service",
         severity="high", labels=report("parcel-platform", "slack", "gosia.k"),
         title="ParcelLink labels failing for all merchants",
         description="Every label request routed to ParcelLink has failed since 09:58. Merchants get 'carrier "
                     "unavailable' and the print queues at Daventry and Leeds are backing up. label-service "
                     "logs show ParcelLink's OAuth token endpoint answering 401 invalid_client. Other carriers "
                     "(Swiftpost, own fleet) print fine.",
         symptoms=["auth-failure", "401", "jobs-stuck"],
         errors=["c.l.label.carrier.ParcelLinkClient - token request failed: 401 {\"error\":\"invalid_client\"}"],
         runbook=None,
         outcome=dict(after=76, by="gosia.k",
                      rootCause="ParcelLink rotates API client secrets every 90 days; partner ops stored the new "
                                "one in Vault, but the ExternalSecret refreshes daily and label-service reads "
                                "credentials only at start",
                      summary="Carrier credential rotation not picked up. A plain restart came back with the "
                              "old secret from the Kubernetes Secret. Forcing the ExternalSecret sync and then "
                              "restarting label-service fixed it.",
                      runbook=None,
                      actions=[("restart label-service", "failed", "restart-deployment"),
                               ("force-sync ExternalSecret carrier-parcellink, restart label-service",
                                "succeeded", None)])),
    dict(key="Q1", fam="RMQDOWN", at="2024-11-22T04:36:00Z", started=26, service="scan-ingest",
         severity="high", labels=report("parcel-platform", "oncall", "femi.a"),
         title="scan events not reaching rabbit after node upgrades",
         description="The overnight node pool upgrade drained the rabbitmq nodes one by one. Since ~04:10 the "
                     "scan-ingest bridge can't publish to scan.events and is buffering to disk (1.2 GB so "
                     "far). The management UI shows scan.events with no master, its mirrors on rabbitmq-0 and "
                     "rabbitmq-2 unsynchronised. Scanners themselves are connected fine.",
         symptoms=["queue-unavailable", "scans-delayed"],
         errors=["NOT_FOUND - home node 'rabbit@rabbitmq-1.rabbitmq-nodes.messaging' of durable queue "
                 "'scan.events' in vhost '/' is down or inaccessible"],
         runbook="rabbitmq-sync-mirrored-queues",
         outcome=dict(after=44, by="liam.c",
                      rootCause="the node holding the scan.events master was drained before its mirrors "
                                "synced; with ha-promote-on-shutdown when-synced no mirror took over",
                      summary="Classic mirrored queue left without a master after a node drain. Starting the "
                              "node's app and syncing the queue brought it back; the bridge flushed its buffer.",
                      runbook="rabbitmq-sync-mirrored-queues",
                      actions=[("run runbook rabbitmq-sync-mirrored-queues for scan.events", "succeeded",
                                "rabbitmq-sync-mirrored-queues")])),
    dict(key="RT1", fam="ROUTE", cond="cpu", at="2024-11-29T04:20:00Z", started=25, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "marta.s"),
         title="Route plans for Midlands depots will miss 05:00 cut-off",
         description="Black Friday volumes: tonight's plan has ~38% more stops than last Friday. The Midlands "
                     "group is only 60% solved at 04:15, all six solver pods are at 100% CPU (4 cores each) "
                     "and 14 depot jobs are still queued. Matrix fetches look normal.",
         symptoms=["missed-cutoff", "high-cpu", "jobs-stuck"],
         errors=[],
         runbook="route-planner-scale-solvers",
         outcome=dict(after=45, by="marta.s",
                      rootCause="nightly plan CPU-bound: Black Friday volume on six solver pods",
                      summary="Solvers scaled from 6 to 14; Midlands plans finished at 04:52.",
                      runbook="route-planner-scale-solvers",
                      actions=[("run runbook route-planner-scale-solvers (14 replicas)", "succeeded",
                                "route-planner-scale-solvers")])),
    # ---------------- 2024-12
    dict(key="E1", fam="ESFIELD", at="2024-12-03T11:05:00Z", started=25, service="recs-api",
         severity="high", labels=report("media-platform", "slack", "kenji.w"),
         title="recs-api 500s on homepage rail, ES errors",
         description="About 20% of /v1/recs calls return 500 since 10:40. The errors come from Elasticsearch: "
                     "'Data too large' circuit breaker. Last recs deploy was 4.14.1 on Friday, nothing today. "
                     "ES data nodes are at 93-96% heap.",
         symptoms=["5xx", "circuit-breaker"],
         errors=["elasticsearch.exceptions.TransportError: TransportError(429, 'circuit_breaking_exception', "
                 "'[parent] Data too large, data for [<http_request>] would be [16492341256/15.3gb], which is "
                 "larger than the limit of [16320875724/15.1gb]')"],
         deployment=dep("recs-api-4.14.1", "4.14.1", 5790),
         runbook=None, trap=["helm-rollback-release"],
         outcome=dict(after=95, by="ruth.o",
                      rootCause="a Kibana dashboard aggregated on the text field keywords (fielddata enabled "
                                "in the October mapping change); fielddata filled ES heap and the parent "
                                "breaker tripped for all searches",
                      summary="ES heap full of fielddata from one dashboard. Going back to recs-api 4.13.2 "
                              "changed nothing. Clearing the fielddata cache and removing the dashboard panel "
                              "fixed it; fielddata on keywords was switched off.",
                      runbook=None,
                      actions=[("run runbook helm-rollback-release on recs-api (to 4.13.2)", "failed",
                                "helm-rollback-release"),
                               ("POST _cache/clear?fielddata=true, remove dashboard panel, set fielddata false "
                                "on keywords", "succeeded", None)])),
    dict(key="M1", fam="MQTT", at="2024-12-09T08:12:00Z", started=70, service="scan-ingest",
         severity="high", labels=report("parcel-ops", "support", "femi.a"),
         title="Handheld scanners at Daventry keep dropping connection",
         description="Daventry and Leeds supervisors say scanners show 'server disconnected' every few minutes "
                     "since the start of the 07:00 shift; scans queue on the device and upload in bursts. The "
                     "scan-ingest-mqtt-0 broker pod was OOM-killed twice this morning (limit 6Gi) and every "
                     "restart drops all ~3,400 scanner connections at once. The RabbitMQ side is fine, the "
                     "bridge publishes whatever it gets.",
         symptoms=["device-disconnects", "oom-kill", "scans-delayed"],
         errors=["1733731902: Client scn-dv-1187 closed its connection.",
                 "OOMKilled: container mosquitto exit code 137"],
         runbook=None,
         outcome=dict(after=163, by="femi.a",
                      rootCause="about 41k persistent MQTT sessions (clean session off) from scanners that were "
                                "retired or re-imaged with new client ids, each holding queued QoS 1 config "
                                "pushes; the 4.8 GB persistence file was loaded into memory",
                      summary="Broker memory filled with stale persistent sessions. A restart held for 25 "
                              "minutes. Pruning sessions idle for more than 72h from mosquitto.db and setting "
                              "persistent_client_expiration to 3d fixed it.",
                      runbook=None,
                      actions=[("restart scan-ingest broker", "partial", "restart-deployment"),
                               ("prune sessions idle >72h from mosquitto.db, set persistent_client_expiration "
                                "3d", "succeeded", None)])),
    dict(key="G1", fam="GWSTALE", at="2024-12-12T15:18:00Z", started=16, service="tracking-api",
         severity="high", labels=report("parcel-platform", "slack", "sanjay.p"),
         title="Tracking page 502s after tracking-api 7.3.0 deploy",
         description="We rolled tracking-api 7.3.0 at 15:01 and right after that ~30% of track requests got a "
                     "502 from the gateway. The new pods are Ready, their own metrics show no errors, and "
                     "curling the service from inside the cluster works every time. Kong's error log shows it "
                     "connecting to pod IPs that don't exist any more.",
         symptoms=["502", "connection-refused"],
         errors=["[error] 1290#0: *8812 connect() failed (111: Connection refused) while connecting to "
                 "upstream, client: 10.40.3.7, server: kong, request: \"GET /v2/track/LK90388123GB HTTP/1.1\", "
                 "upstream: \"http://10.42.7.19:8080/v2/track/LK90388123GB\""],
         deployment=dep("tracking-api-7.3.0", "7.3.0", 17),
         runbook=None,
         outcome=dict(after=34, by="noor.h",
                      rootCause="Kong resolves the tracking-api headless service into pod targets; a failed "
                                "lookup during the rollout left it on stale records (dns_stale_ttl 3600) "
                                "pointing at terminated pods",
                      summary="Gateway kept sending to old pod IPs. Going back to 7.2.4 replaced the pods again "
                              "and the 502 share rose to 60%. Reloading Kong on every gateway pod fixed it at "
                              "once.",
                      runbook=None,
                      actions=[("run runbook helm-rollback-release on tracking-api", "failed",
                                "helm-rollback-release"),
                               ("kong reload on all gateway pods", "succeeded", None)])),
    dict(key="P2", fam="PGCONN", at="2024-12-16T17:52:00Z", started=7, service="postgres-shared",
         severity="critical", style="page", labels=page("PgBouncerClientsWaiting", "data-platform", "critical", "data"),
         title="[FIRING:1] PgBouncerClientsWaiting postgres-shared",
         description="Clients waiting for a server connection on the larkspur pool",
         symptoms=["connection-pool-exhausted"],
         errors=["max by (database) (pgbouncer_pools_client_waiting_connections{database=\"larkspur\"}) > 25  "
                 "value=212"],
         runbook="pgbouncer-kill-idle-transactions",
         outcome=dict(after=28, by="ruth.o",
                      rootCause="label-service manifest job again held transactions across carrier calls, "
                                "through a new code path for the Swiftpost manifest",
                      summary="Same idle-in-transaction pile-up as in October. Terminating the sessions and "
                              "reconnecting the pool cleared the wait queue.",
                      runbook="pgbouncer-kill-idle-transactions",
                      actions=[("run runbook pgbouncer-kill-idle-transactions", "succeeded",
                                "pgbouncer-kill-idle-transactions")])),
    dict(key="A1", fam="RMQALARM", at="2024-12-19T09:40:00Z", started=35, service="scan-ingest",
         severity="high", labels=report("parcel-platform", "oncall", "marta.s"),
         title="scan-ingest bridge blocked by rabbit - scans backing up",
         description="The bridge's publisher connections are in 'blocking' state; rabbit has raised the memory "
                     "alarm on all three nodes. scan.events has 2.9M ready messages and growing. The "
                     "tracking-events consumers are running (12 pods) but can't keep up with pre-Christmas "
                     "volume: ack rate ~3k/s against 7k/s published. Scanners are connected and the MQTT "
                     "broker is fine.",
         symptoms=["publisher-blocked", "queue-backlog", "scans-delayed"],
         errors=["rabbitmq: connection.blocked reason=\"low on memory\"",
                 "bridge: publish buffer 812MB, spilling to disk"],
         runbook="tracking-scale-event-consumers",
         outcome=dict(after=65, by="marta.s",
                      rootCause="tracking-events consumers capped at 12 replicas while pre-Christmas scan "
                                "volume doubled; the backlog pushed RabbitMQ over its memory watermark",
                      summary="Consumer floor raised from 12 to 30; backlog drained in 50 minutes and the "
                              "memory alarm cleared.",
                      runbook="tracking-scale-event-consumers",
                      actions=[("run runbook tracking-scale-event-consumers (min 30, max 40)", "succeeded",
                                "tracking-scale-event-consumers")])),
    dict(key="RT2", fam="ROUTE", cond="cpu", at="2024-12-22T04:05:00Z", started=5, service="route-planner",
         severity="high", style="page", labels=page("RoutePlanBehindSchedule", "parcel-platform", "high", "routing"),
         title="[FIRING:1] RoutePlanBehindSchedule route-planner",
         description="North depot group plan less than 70% solved with 60m to dispatch cut-off",
         symptoms=["missed-cutoff"],
         errors=["min by (depot_group) (route_plan_solved_ratio{depot_group=\"north\"}) < 0.7 and on() "
                 "(route_dispatch_cutoff_timestamp_seconds - time()) < 3600  value=0.46"],
         runbook="route-planner-scale-solvers",
         outcome=dict(after=43, by="femi.a",
                      rootCause="Christmas volume; solver pods CPU-bound",
                      summary="Solver CPU saturated on the last Sunday before Christmas. Scaled to 12 "
                              "replicas, north plan finished 04:41.",
                      runbook="route-planner-scale-solvers",
                      actions=[("run runbook route-planner-scale-solvers (12 replicas)", "succeeded",
                                "route-planner-scale-solvers")])),
    # ---------------- 2025-01
    dict(key="W1", fam="ESRO", at="2025-01-08T10:22:00Z", started=32, service="tracking-api",
         severity="high", labels=report("parcel-platform", "support", "gosia.k"),
         title="Parcel status not updating - ES writes rejected",
         description="Customers and the contact centre see parcels stuck on their last status from ~09:50. "
                     "tracking-api's indexer gets a cluster_block_exception for every write to "
                     "tracking-events-2025.01; reads still work. ES data nodes are at 95-96% disk. The ILM "
                     "delete phase for tracking-events-* seems not to have run since before Christmas.",
         symptoms=["read-only-index", "disk-full", "data-stale"],
         errors=["cluster_block_exception: index [tracking-events-2025.01] blocked by: [TOO_MANY_REQUESTS/12/disk "
                 "usage exceeded flood-stage watermark, index has read-only-allow-delete block];"],
         runbook=None,
         outcome=dict(after=113, by="liam.c",
                      rootCause="the December reindex detached ILM policy tracking-events-90d; old daily "
                                "indices piled up until data nodes hit the flood-stage watermark",
                      summary="Disk full on ES data nodes, every index got the read-only-allow-delete block. "
                              "Deleted tracking-events indices older than 90 days, lifted the block and "
                              "re-attached the ILM policy.",
                      runbook=None,
                      actions=[("delete tracking-events indices older than 90 days, clear "
                                "read_only_allow_delete, re-attach ILM policy", "succeeded", None)])),
    dict(key="L2", fam="LIVE", cond="packager", at="2025-01-14T20:12:00Z", started=12, service="video-packager",
         severity="high", style="page", labels=page("PackagerLiveManifestSlow", "media-platform", "high", "media"),
         title="[FIRING:1] PackagerLiveManifestSlow video-packager",
         description="Live playlist render p99 above 1s for 10m",
         symptoms=["latency-spike"],
         errors=["histogram_quantile(0.99, sum by (le, channel) (rate(packager_manifest_render_seconds_bucket"
                 "{kind=\"live\"}[5m]))) > 1  value=3.07"],
         runbook="packager-restart-live-workers",
         outcome=dict(after=28, by="aisha.r",
                      rootCause="the live packager session leak again; 2.8.3 with the fix was not rolled out yet",
                      summary="Live renders slow from packager memory growth. Rolling restart of the live "
                              "workers fixed it; 2.8.3 went out the next day.",
                      runbook="packager-restart-live-workers",
                      actions=[("run runbook packager-restart-live-workers", "succeeded",
                                "packager-restart-live-workers")])),
    dict(key="Q2", fam="RMQDOWN", at="2025-01-21T05:10:00Z", started=30, service="label-service",
         severity="high", labels=report("parcel-platform", "oncall", "gosia.k"),
         title="Label jobs not being picked up",
         description="Printers at Leeds have printed nothing since ~04:40. label-service accepts jobs, but the "
                     "workers consuming label.jobs log a channel error and reconnect every few seconds. There "
                     "was rabbitmq maintenance last night (kernel patching).",
         symptoms=["jobs-stuck", "queue-unavailable"],
         errors=["com.rabbitmq.client.ShutdownSignalException: channel error; protocol method: "
                 "#method<channel.close>(reply-code=404, reply-text=NOT_FOUND - home node "
                 "'rabbit@rabbitmq-2.rabbitmq-nodes.messaging' of durable queue 'label.jobs' in vhost '/' is "
                 "down or inaccessible, class-id=60, method-id=20)"],
         runbook="rabbitmq-sync-mirrored-queues",
         outcome=dict(after=38, by="liam.c",
                      rootCause="rabbitmq-2 was patched and stopped while label.jobs mirrors were unsynchronised",
                      summary="label.jobs lost its master during patching. Started the node's app and synced the "
                              "queue; printing resumed 05:46.",
                      runbook="rabbitmq-sync-mirrored-queues",
                      actions=[("run runbook rabbitmq-sync-mirrored-queues for label.jobs", "succeeded",
                                "rabbitmq-sync-mirrored-queues")])),
    dict(key="D2", fam="DNS", at="2025-01-28T16:34:00Z", started=24, service="route-planner",
         severity="high", labels=report("parcel-platform", "slack", "marta.s"),
         title="route-planner can't reach maps provider - lookup timeouts",
         description="Intra-day replans are failing since 16:10. The matrix client errors before it even "
                     "connects: the lookup for the provider's hostname times out. license-server and tracking "
                     "have the same thing in their logs. Node count went from 40 to 64 on Monday for the peak "
                     "load test and CoreDNS is still on 2 replicas, CPU throttled.",
         symptoms=["dns-failure", "timeouts"],
         errors=["socket.gaierror: [Errno -3] Temporary failure in name resolution (api.maproute.example)"],
         runbook="coredns-scale-out",
         outcome=dict(after=31, by="noor.h",
                      rootCause="the cluster-proportional autoscaler for CoreDNS had been disabled in the "
                                "November cluster upgrade; 2 replicas could not serve 64 nodes",
                      summary="Cluster DNS overloaded after the node count grew. CoreDNS scaled to 8 and the "
                              "autoscaler re-enabled.",
                      runbook="coredns-scale-out",
                      actions=[("run runbook coredns-scale-out (8 replicas)", "succeeded", "coredns-scale-out"),
                               ("re-enable dns-autoscaler", "succeeded", None)])),
    # ---------------- 2025-02
    dict(key="R2", fam="REL", at="2025-02-04T14:48:00Z", started=6, service="recs-api",
         severity="high", style="page", labels=page("RecsApiLatencyHigh", "media-platform", "high", "media"),
         title="[FIRING:1] RecsApiLatencyHigh recs-api",
         description="recs-api p99 above 800ms for 10 minutes",
         symptoms=["latency-spike"],
         errors=["histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket"
                 "{service=\"recs-api\"}[5m]))) > 0.8  value=2.91"],
         deployment=dep("recs-api-4.16.0", "4.16.0", 14),
         runbook="helm-rollback-release",
         outcome=dict(after=22, by="kenji.w",
                      rootCause="recs-api 4.16.0 added a per-item ES lookup for freshness (N+1 queries)",
                      summary="Release regression. Helm rollback to 4.15.2 fixed latency; 4.16.1 batches the "
                              "freshness lookup.",
                      runbook="helm-rollback-release",
                      actions=[("run runbook helm-rollback-release on recs-api", "succeeded",
                                "helm-rollback-release")])),
    dict(key="M2", fam="MQTT", at="2025-02-06T07:25:00Z", started=40, service="scan-ingest",
         severity="medium", labels=report("parcel-platform", "slack", "femi.a"),
         title="mqtt broker memory climbing again",
         description="scan-ingest-mqtt-0 is at 5.4Gi of 6Gi and rising ~300Mi an hour, same shape as December. "
                     "Scanners are still connected for now. Persistence file is 3.1 GB.",
         symptoms=["memory-pressure"],
         errors=[],
         runbook="mosquitto-expire-stale-sessions",
         outcome=dict(after=45, by="femi.a",
                      rootCause="the Leeds scanner re-imaging project created ~20k new client ids in two days, "
                                "faster than the 3-day session expiry",
                      summary="Stale persistent sessions again. Ran the session prune and reloaded the broker "
                              "pod; memory back to 1.2Gi.",
                      runbook="mosquitto-expire-stale-sessions",
                      actions=[("run runbook mosquitto-expire-stale-sessions on mqtt-0", "succeeded",
                                "mosquitto-expire-stale-sessions")])),
    dict(key="C2", fam="CERT", at="2025-02-11T07:02:00Z", started=62, service="scan-ingest",
         severity="critical", labels=report("parcel-ops", "support", "gosia.k"),
         title="Scanners failing TLS to mqtt endpoint",
         description="From 06:00 new connections from warehouse scanners to mqtt.larkspur.example:8883 fail the "
                     "TLS handshake. Scanners that stayed connected overnight still work, so it's only the ones "
                     "that reconnected after the shift-change reboot. The certificate on 8883 expired at 05:47 "
                     "today. cert-manager shows the Certificate as not Ready for days.",
         symptoms=["tls-error", "cert-expired", "device-disconnects"],
         errors=["OpenSSL Error[0]: error:0A000415:SSL routines::sslv3 alert certificate expired"],
         runbook="cert-manager-force-renewal",
         outcome=dict(after=88, by="noor.h",
                      rootCause="the larkspur.example zone moved to another Cloudflare account during domain "
                                "consolidation; the solver's API token no longer had edit rights on it",
                      summary="MQTT certificate expired because DNS-01 challenges failed. Token scope fixed, "
                              "certificate issued again and the brokers reloaded.",
                      runbook="cert-manager-force-renewal",
                      actions=[("fix Cloudflare token zone permissions", "succeeded", None),
                               ("run runbook cert-manager-force-renewal for mqtt-larkspur-tls", "succeeded",
                                "cert-manager-force-renewal")])),
    dict(key="K2", fam="CARRIER", at="2025-02-17T09:31:00Z", started=6, service="label-service",
         severity="high", style="page", labels=page("CarrierAuthErrors", "parcel-platform", "high", "parcel"),
         title="[FIRING:1] CarrierAuthErrors label-service",
         description="ParcelLink API returning 401 to label-service",
         symptoms=["401"],
         errors=["sum by (carrier) (rate(label_carrier_requests_total{carrier=\"parcellink\",code=\"401\"}[5m])) "
                 "> 0.2  value=6.8"],
         runbook=None,
         outcome=dict(after=69, by="sanjay.p",
                      rootCause="90-day ParcelLink secret rotation; the new secret was in Vault but not in the "
                                "Kubernetes Secret",
                      summary="Same as November. Forced the ExternalSecret sync and restarted label-service. "
                              "A runbook for this is being written.",
                      runbook=None,
                      actions=[("force-sync ExternalSecret carrier-parcellink, restart label-service",
                                "succeeded", None)])),
    dict(key="O1", fam="FAIRPLAY", at="2025-02-20T19:40:00Z", started=35, service="license-server",
         severity="high", labels=report("media-platform", "oncall", "joel.b"),
         title="FairPlay licenses failing on iOS/Safari after cert update",
         description="All FairPlay license requests fail since 19:05; Widevine and PlayReady are fine. Players "
                     "get a license error right after sending the SPC and license-server logs 'SPC decryption "
                     "failed'. The Apple FPS certificate was replaced in the CMS DRM settings this afternoon "
                     "because the old one expires next month. TLS on the license endpoint looks fine.",
         symptoms=["playback-failure", "auth-failure"],
         errors=["fairplay: SPC decryption failed: crypto/rsa: decryption error",
                 "license: drm=fairplay status=500 content_id=news24-live"],
         runbook=None, trap=["cert-manager-force-renewal"],
         outcome=dict(after=105, by="joel.b",
                      rootCause="the new FairPlay application certificate was uploaded without its matching "
                                "private key; license-server paired the new certificate with the old key",
                      summary="FairPlay-only failure from a DRM settings change, unrelated to TLS. Put the old "
                              "FPS certificate back in the CMS, then uploaded the new pair together the next "
                              "morning.",
                      runbook=None,
                      actions=[("restore previous FPS certificate in CMS DRM settings", "succeeded", None)])),
    dict(key="E2", fam="ESFIELD", at="2025-02-24T10:55:00Z", started=25, service="tracking-api",
         severity="medium", labels=report("parcel-ops", "support", "gosia.k"),
         title="Parcel search in support console failing",
         description="The contact centre can't search parcels by postcode or name since ~10:30, they get "
                     "'search unavailable'. tracking-api /v2/search returns 503 and its log has ES 'Data too "
                     "large' errors. Looking up by parcel number (Postgres) still works.",
         symptoms=["circuit-breaker", "5xx"],
         errors=["ResponseError: circuit_breaking_exception: [parent] Data too large, data for [<http_request>] "
                 "would be [16.1gb/17291870208b], which is larger than the limit of [15.1gb/16320875724b]"],
         runbook="es-clear-fielddata-cache",
         outcome=dict(after=35, by="liam.c",
                      rootCause="an analyst rebuilt the keywords visualisation in another Kibana space and turned "
                                "fielddata back on for it",
                      summary="ES parent breaker tripped by fielddata again, this time hitting parcel search. "
                              "Fielddata cleared and disabled on the field; Kibana spaces now read-only for "
                              "mappings.",
                      runbook="es-clear-fielddata-cache",
                      actions=[("run runbook es-clear-fielddata-cache (recs-items-v7, keywords)", "succeeded",
                                "es-clear-fielddata-cache")])),
    dict(key="RT3", fam="ROUTE", cond="matrix", at="2025-02-27T04:10:00Z", started=30, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "sanjay.p"),
         title="Plans late again but solvers are idle??",
         description="South-west group isn't done and it's 04:10. Solver CPU is only ~15%; most workers are "
                     "sleeping in the matrix fetch retry loop and the log is full of 429s from the maps "
                     "provider. Volumes are normal for a Thursday. Provider status page says nothing.",
         symptoms=["missed-cutoff", "jobs-stuck"],
         errors=["matrix.fetch: provider returned 429 Too Many Requests (retry-after=8), attempt 5/8"],
         runbook=None, trap=["route-planner-scale-solvers"],
         outcome=dict(after=70, by="sanjay.p",
                      rootCause="a schema migration on 26 February truncated the matrix cache table, so every "
                                "depot fetched full matrices and went over the provider's per-minute quota",
                      summary="Plan blocked on provider throttling, not on CPU. Scaling solvers to 14 only "
                              "produced more 429s. Switching the solvers to last night's matrix snapshot and "
                              "re-running finished the plan at 05:14.",
                      runbook=None,
                      actions=[("run runbook route-planner-scale-solvers (14 replicas)", "failed",
                                "route-planner-scale-solvers"),
                               ("set MATRIX_SOURCE=snapshot on solver, re-run south-west group", "succeeded",
                                None)])),
    # ---------------- 2025-03
    dict(key="P3", fam="PGCONN", at="2025-03-05T16:48:00Z", started=28, service="video-packager",
         severity="high", labels=report("media-platform", "slack", "aisha.r"),
         title="VOD packaging jobs stuck at 'requesting keys'",
         description="Since 16:20 newly uploaded videos sit in 'packaging' in the CMS. The packager logs show the "
                     "CPIX key request to license-server timing out after 10s. license-server itself is idle on "
                     "CPU but its DB calls are slow; the data team say PgBouncer has clients queueing again.",
         symptoms=["jobs-stuck", "timeouts", "connection-pool-exhausted"],
         errors=["cpix: POST http://license-server.media.svc:8080/cpix/v1/keys: context deadline exceeded "
                 "(Client.Timeout exceeded while awaiting headers)"],
         runbook="pgbouncer-kill-idle-transactions",
         outcome=dict(after=37, by="ruth.o",
                      rootCause="label-service's returns reconciliation worker held transactions open across "
                                "carrier calls; idle-in-transaction sessions took every pool connection",
                      summary="Shared pool exhausted again, noticed as stuck VOD packaging (packager -> "
                              "license-server -> Postgres). Terminated the idle sessions and reconnected the "
                              "pool.",
                      runbook="pgbouncer-kill-idle-transactions",
                      actions=[("run runbook pgbouncer-kill-idle-transactions", "succeeded",
                                "pgbouncer-kill-idle-transactions")])),
    dict(key="L3", fam="LIVE", cond="shield", at="2025-03-11T20:40:00Z", started=25, service="origin-shield",
         severity="critical", labels=report("media-platform", "oncall", "joel.b"),
         title="Live stalls during debate - shield serving old playlists",
         description="Big audience for the leaders' debate (~180k concurrent) and players stall every 30-60s. "
                     "Compared the two: the packager directly returns the news24 720p playlist with media "
                     "sequence 48211 in 35ms; through the shield we get 48196 with Age: 74. Packager pods are "
                     "at normal memory (1.1Gi) and CPU. Shield hit ratio 99.6%. This morning's VCL change "
                     "(longer grace for segments) went to all shield pods.",
         symptoms=["rebuffering", "stale-manifest"],
         errors=["< Age: 74  < X-Cache: HIT  #EXT-X-MEDIA-SEQUENCE:48196 (packager direct: 48211)"],
         deployment=dep("origin-shield-vcl-118", "vcl-118", 560),
         runbook=None, trap=["packager-restart-live-workers"],
         outcome=dict(after=85, by="joel.b",
                      rootCause="VCL 118 set beresp.grace to 120s for every object including live playlists; "
                                "when the packager probe flapped under load the shield served playlists from "
                                "grace",
                      summary="Shield served stale live playlists. Restarting the packager did nothing except a "
                              "black screen for viewers on the restarted pods. A varnishadm ban of cached "
                              "playlists plus a VCL hotfix with no grace for .m3u8 fixed it.",
                      runbook=None,
                      actions=[("run runbook packager-restart-live-workers", "failed",
                                "packager-restart-live-workers"),
                               ("varnishadm ban on live .m3u8, load VCL with grace 0 for playlists",
                                "succeeded", None)])),
    dict(key="G2", fam="GWSTALE", at="2025-03-14T11:20:00Z", started=15, service="label-service",
         severity="high", labels=report("parcel-platform", "support", "gosia.k"),
         title="Merchant API label calls 502 after label-service deploy",
         description="The Shopify plugin and two big merchants report 502 Bad Gateway on POST /v1/labels from "
                     "~11:05, right after label-service 3.22.0 went out. label-service pods are healthy, no "
                     "errors in its logs, and direct calls from a debug pod work. Gateway logs: connection "
                     "refused to 10.42.x addresses that aren't pods any more. Same as the tracking one in "
                     "December?",
         symptoms=["502", "connection-refused"],
         errors=["connect() failed (111: Connection refused) while connecting to upstream, upstream: "
                 "\"http://10.42.11.54:8080/v1/labels\""],
         deployment=dep("label-service-3.22.0", "3.22.0", 15),
         runbook="api-gateway-refresh-upstreams",
         outcome=dict(after=30, by="noor.h",
                      rootCause="Kong kept stale DNS records for the label-service upstream after the rollout",
                      summary="Gateway pointed at terminated pods again. Kong reloaded fleet-wide; the 502s "
                              "stopped immediately. label-service 3.22.0 stayed.",
                      runbook="api-gateway-refresh-upstreams",
                      actions=[("run runbook api-gateway-refresh-upstreams", "succeeded",
                                "api-gateway-refresh-upstreams")])),
    dict(key="Q3", fam="RMQDOWN", at="2025-03-18T03:22:00Z", started=20, service="rabbitmq",
         severity="high", labels=report("data-platform", "oncall", "liam.c"),
         title="rabbitmq: unsynced mirrors after node drain, route.replan has no master",
         description="Drain of rabbitmq-1 for the instance refresh at 03:00. Seven mirrored queues now show "
                     "unsynchronised mirrors and route.replan lost its master; route-planner consumers get "
                     "404s on it. scan.events synced before the drain and is fine.",
         symptoms=["queue-unavailable"],
         errors=["NOT_FOUND - home node 'rabbit@rabbitmq-1.rabbitmq-nodes.messaging' of durable queue "
                 "'route.replan' in vhost '/' is down or inaccessible"],
         runbook="rabbitmq-sync-mirrored-queues",
         outcome=dict(after=43, by="liam.c",
                      rootCause="node drained with unsynchronised mirrors (manual sync mode)",
                      summary="Brought rabbitmq-1's app back and synced the seven queues. This is the last "
                              "planned drain before the move to quorum queues on 22 March.",
                      runbook="rabbitmq-sync-mirrored-queues",
                      actions=[("run runbook rabbitmq-sync-mirrored-queues for route.replan and six others",
                                "succeeded", "rabbitmq-sync-mirrored-queues")])),
    dict(key="A2", fam="RMQALARM", at="2025-03-24T08:50:00Z", started=10, service="rabbitmq",
         severity="critical", style="page", labels=page("RabbitMQMemoryAlarm", "data-platform", "critical", "messaging"),
         title="[FIRING:1] RabbitMQMemoryAlarm rabbitmq",
         description="Memory alarm raised; publishers are blocked",
         symptoms=["publisher-blocked"],
         errors=["max(rabbitmq_alarms_memory_used_watermark) == 1  value=1"],
         runbook="tracking-scale-event-consumers",
         outcome=dict(after=65, by="marta.s",
                      rootCause="Monday backlog after weekend sortation at Daventry; the tracking-events "
                                "consumer floor had been lowered to 8 after Christmas",
                      summary="scan.events backlog pushed RabbitMQ (now on quorum queues) over its memory "
                              "watermark. The parcel on-call first ran the broker session cleanup because "
                              "scans looked delayed; the MQTT broker was healthy and nothing changed. Raising "
                              "the consumer floor drained the queue.",
                      runbook="tracking-scale-event-consumers",
                      actions=[("run runbook mosquitto-expire-stale-sessions", "failed",
                                "mosquitto-expire-stale-sessions"),
                               ("run runbook tracking-scale-event-consumers (min 24)", "succeeded",
                                "tracking-scale-event-consumers")])),
    dict(key="O2", fam="DST", at="2025-03-30T04:02:00Z", started=2, service="route-planner",
         severity="critical", style="page", labels=page("RoutePlanNotStarted", "parcel-platform", "critical", "routing"),
         title="[FIRING:1] RoutePlanNotStarted route-planner",
         description="No nightly plan run has started for any depot group",
         symptoms=["missed-cutoff"],
         errors=["time() - max(route_plan_run_started_timestamp_seconds) > 3 * 3600  value=97380"],
         runbook=None, trap=["route-planner-scale-solvers", "route-planner-use-snapshot-matrix"],
         outcome=dict(after=48, by="femi.a",
                      rootCause="the nightly-plan CronJob runs at 01:30 Europe/London; on the spring-forward "
                                "night 01:30 does not exist and the job was skipped",
                      summary="No plan at all, not a slow one: the CronJob never fired on the clock change. "
                              "Started it by hand; plans were 40 minutes late. Schedule moved to 02:30 UTC.",
                      runbook=None,
                      actions=[("kubectl create job --from=cronjob/nightly-plan", "succeeded", None)])),
    # ---------------- 2025-04
    dict(key="C3", fam="CERT", at="2025-04-08T09:15:00Z", started=5, service="cert-manager",
         severity="high", style="page", labels=page("CertificateNotReady", "sre", "high", "cert-manager"),
         title="[FIRING:1] CertificateNotReady cert-manager",
         description="Certificate edge/edge-larkspur-tls not Ready for more than 6h",
         symptoms=[],
         errors=["max by (namespace, name) (certmanager_certificate_ready_status{condition=\"False\"}) == 1  "
                 "value=1"],
         runbook="cert-manager-force-renewal",
         outcome=dict(after=105, by="ben.t",
                      rootCause="cert-manager's DNS-01 self-check asked the cluster resolvers, which still had "
                                "the previous _acme-challenge TXT cached; the challenge never passed",
                      summary="Edge certificate stuck before expiry. cert-manager now checks against "
                              "Cloudflare's nameservers only; the certificate was issued again and Kong "
                              "reloaded it.",
                      runbook="cert-manager-force-renewal",
                      actions=[("set --dns01-recursive-nameservers-only", "succeeded", None),
                               ("run runbook cert-manager-force-renewal for edge-larkspur-tls", "succeeded",
                                "cert-manager-force-renewal")])),
    dict(key="E3", fam="ESFIELD", at="2025-04-10T14:30:00Z", started=30, service="elasticsearch",
         severity="high", labels=report("data-platform", "oncall", "ruth.o"),
         title="ES heap pressure on data nodes, breakers tripping",
         description="es-data-3/4/5 at 94-97% heap with old-gen GC every few seconds. _cat/fielddata shows "
                     "5.8gb on the keywords field per node. recs and CMS search both report breaker errors. "
                     "Disk is fine (61%).",
         symptoms=["circuit-breaker", "memory-pressure"],
         errors=["[es-data-4] [gc][old][88412][913] duration [4.1s], collections [1]/[4.6s], total "
                 "[4.1s]/[2.2m], memory [15.6gb]->[15.2gb]/[16gb]"],
         runbook="es-clear-fielddata-cache", trap=["es-clear-readonly-block"],
         outcome=dict(after=35, by="ruth.o",
                      rootCause="the new recs-items-v8 index was created from an old template with fielddata "
                                "on keywords",
                      summary="Fielddata heap pressure again after an index template regression. Cleared and "
                              "disabled fielddata, fixed the template.",
                      runbook="es-clear-fielddata-cache",
                      actions=[("run runbook es-clear-fielddata-cache (recs-items-v8, keywords)", "succeeded",
                                "es-clear-fielddata-cache")])),
    dict(key="W2", fam="ESRO", at="2025-04-15T12:10:00Z", started=20, service="cms-api",
         severity="critical", labels=report("newsroom-tools", "slack", "priya.n"),
         title="Can't publish articles - 'search index write failed'",
         description="The newsdesk can't publish or update articles since about 11:50; the CMS says 'search "
                     "index write failed' and the save doesn't go through. cms-api's log has a 429 from ES "
                     "about a read-only block on articles-v12. Searching in the CMS still works.",
         symptoms=["read-only-index", "error-rate"],
         errors=["Elastic\\Elasticsearch\\Exception\\ClientResponseException: 429 Too Many Requests: "
                 "cluster_block_exception index [articles-v12] blocked by: [TOO_MANY_REQUESTS/12/disk usage "
                 "exceeded flood-stage watermark, index has read-only-allow-delete block]"],
         runbook="es-clear-readonly-block",
         outcome=dict(after=50, by="liam.c",
                      rootCause="a snapshot restore test left ~900GB of restored indices on the data nodes",
                      summary="ES disk at flood stage blocked CMS index writes. The on-call first cleared "
                              "fielddata, which did nothing. Deleting the restore-test indices and lifting the "
                              "block fixed publishing.",
                      runbook="es-clear-readonly-block",
                      actions=[("run runbook es-clear-fielddata-cache", "failed", "es-clear-fielddata-cache"),
                               ("run runbook es-clear-readonly-block (restore-test-*)", "succeeded",
                                "es-clear-readonly-block")])),
    dict(key="L4", fam="LIVE", cond="shield", at="2025-04-23T19:55:00Z", started=9, service="origin-shield",
         severity="high", style="page", labels=page("LivePlaylistAgeHigh", "media-platform", "high", "edge"),
         title="[FIRING:1] LivePlaylistAgeHigh origin-shield",
         description="Live playlists served from the shield are older than 3 target durations",
         symptoms=["stale-manifest"],
         errors=["max by (channel) (shield_live_playlist_age_seconds) > 18  value=71"],
         runbook="origin-shield-ban-live-manifests",
         outcome=dict(after=30, by="aisha.r",
                      rootCause="the shield's backend probe to the packager (1s timeout) failed during a GC "
                                "pause and the pods that had not yet loaded live-nograce served from grace",
                      summary="Stale playlists at the shield, packager healthy. Ban plus live-nograce VCL on "
                              "every pod; probe timeout raised to 3s.",
                      runbook="origin-shield-ban-live-manifests",
                      actions=[("run runbook origin-shield-ban-live-manifests", "succeeded",
                                "origin-shield-ban-live-manifests")])),
    dict(key="D3", fam="DNS", at="2025-04-29T07:35:00Z", started=6, service="cluster-dns",
         severity="high", style="page", labels=page("CoreDNSLatencyHigh", "sre", "high", "kube-system"),
         title="[FIRING:1] CoreDNSLatencyHigh cluster-dns",
         description="CoreDNS p99 request duration above 250ms",
         symptoms=["dns-failure"],
         errors=["histogram_quantile(0.99, sum by (le) (rate(coredns_dns_request_duration_seconds_bucket[5m]))) "
                 "> 0.25  value=1.62"],
         runbook="coredns-scale-out",
         outcome=dict(after=25, by="ben.t",
                      rootCause="new scan-ingest HTTP workers resolved external hostnames without a trailing "
                                "dot, multiplying queries through the search path; CoreDNS CPU-bound",
                      summary="CoreDNS overloaded by search-path expansion. Scaled to 10; scan-ingest set "
                              "ndots:2.",
                      runbook="coredns-scale-out",
                      actions=[("run runbook coredns-scale-out (10 replicas)", "succeeded", "coredns-scale-out")])),
    # ---------------- 2025-05
    dict(key="Q4", fam="RMQDOWN", at="2025-05-06T02:40:00Z", started=40, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "marta.s"),
         title="Replan jobs not consumed since rabbit node replacement",
         description="Two rabbitmq nodes were replaced last night (new instance type). Since then route.replan "
                     "publishes time out and the consumer can't declare the queue. `rabbitmq-queues "
                     "quorum_status route.replan` lists three members, two of them on node names that no longer "
                     "exist, and there's no leader. scan.events and label.jobs look ok.",
         symptoms=["queue-unavailable", "jobs-stuck"],
         errors=["pika.exceptions.ChannelClosedByBroker: (541, \"INTERNAL_ERROR - failed to declare queue "
                 "'route.replan' in vhost '/': timeout\")"],
         runbook="rabbitmq-quorum-grow-members",
         outcome=dict(after=70, by="liam.c",
                      rootCause="route.replan's quorum members sat on two nodes that were replaced before new "
                                "members were added; one of three left, no majority",
                      summary="Quorum queue without a leader after node replacement. The old mirrored-queue "
                              "runbook failed at once (no mirrored queues, sync_queue rejects quorum queues). "
                              "Shrinking to the surviving member and growing onto the new nodes brought it back.",
                      runbook="rabbitmq-quorum-grow-members",
                      actions=[("run runbook rabbitmq-sync-mirrored-queues", "failed",
                                "rabbitmq-sync-mirrored-queues"),
                               ("run runbook rabbitmq-quorum-grow-members for route.replan", "succeeded",
                                "rabbitmq-quorum-grow-members")])),
    dict(key="R3", fam="REL", at="2025-05-13T12:40:00Z", started=20, service="recs-api",
         severity="high", labels=report("media-platform", "slack", "kenji.w"),
         title="recs-api pods OOMKilled since 4.19.0",
         description="4.19.0 went out at 12:15 and recs pods get OOMKilled every few minutes; they hit the 3Gi "
                     "limit within ~5 minutes of starting. This release loads the new embedding model "
                     "in-process. Homepage is on the editorial fallback.",
         symptoms=["oom-kill", "crash-loop"],
         errors=["Last State: Terminated  Reason: OOMKilled  Exit Code: 137"],
         deployment=dep("recs-api-4.19.0", "4.19.0", 25),
         runbook="helm-rollback-release",
         outcome=dict(after=35, by="kenji.w",
                      rootCause="recs-api 4.19.0 loaded a 2.2GB embedding model into each worker process",
                      summary="Release regression. A restart just OOMed again. Helm rollback to 4.18.3 fixed "
                              "it; the model moved to a shared sidecar in 4.20.",
                      runbook="helm-rollback-release",
                      actions=[("restart recs-api", "failed", "restart-deployment"),
                               ("run runbook helm-rollback-release on recs-api", "succeeded",
                                "helm-rollback-release")])),
    dict(key="K3", fam="CARRIER", at="2025-05-15T10:05:00Z", started=5, service="api-gateway",
         severity="high", style="page", labels=page("GatewayRouteErrorRate", "sre", "high", "edge"),
         title="[FIRING:1] GatewayRouteErrorRate api-gateway",
         description="More than 10% 5xx on route labels-v1",
         symptoms=["5xx"],
         errors=["sum by (route) (rate(kong_http_requests_total{route=\"labels-v1\",code=~\"5..\"}[5m])) / "
                 "sum by (route) (rate(kong_http_requests_total{route=\"labels-v1\"}[5m])) > 0.1  value=0.38"],
         runbook="label-sync-carrier-credentials",
         outcome=dict(after=35, by="sanjay.p",
                      rootCause="ParcelLink secret rotation; label-service answered 503 'carrier auth failed' "
                                "for ParcelLink labels",
                      summary="The gateway alert was label-service's own 503s from the carrier 401s. Ran the "
                              "credential sync.",
                      runbook="label-sync-carrier-credentials",
                      actions=[("run runbook label-sync-carrier-credentials (parcellink)", "succeeded",
                                "label-sync-carrier-credentials")])),
    dict(key="RT4", fam="ROUTE", cond="matrix", at="2025-05-20T03:50:00Z", started=25, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "femi.a"),
         title="matrix provider timeouts, north plan late",
         description="North group at 55% at 03:45. Solvers are mostly waiting: matrix calls time out after 30s "
                     "or come back 429. Solver CPU ~20%. The provider confirms degraded performance in their EU "
                     "region.",
         symptoms=["missed-cutoff", "timeouts"],
         errors=["matrix.fetch: ReadTimeout after 30.0s (provider eu-1)",
                 "matrix.fetch: provider returned 429 Too Many Requests"],
         runbook="route-planner-use-snapshot-matrix",
         outcome=dict(after=40, by="femi.a",
                      rootCause="maps provider degraded in its EU region",
                      summary="Matrix provider slow and throttling. Switched to the snapshot matrix and re-ran "
                              "north; done 04:38.",
                      runbook="route-planner-use-snapshot-matrix",
                      actions=[("run runbook route-planner-use-snapshot-matrix (north)", "succeeded",
                                "route-planner-use-snapshot-matrix")])),
    dict(key="M3", fam="MQTT", at="2025-05-27T11:20:00Z", started=80, service="tracking-api",
         severity="medium", labels=report("parcel-ops", "support", "gosia.k"),
         title="Glasgow parcels showing no scans since 10am",
         description="Customer service: parcels going through the Glasgow hub have had no tracking events since "
                     "~10:00; other hubs are fine. tracking-api is up, the scan.events queue is basically empty "
                     "and the consumers are idle. Glasgow supervisors say scanners show 'reconnecting'. "
                     "scan-ingest-mqtt-1 (the north broker) restarted 4 times this morning.",
         symptoms=["data-stale", "device-disconnects"],
         errors=[],
         runbook="mosquitto-expire-stale-sessions", trap=["tracking-scale-event-consumers"],
         outcome=dict(after=70, by="femi.a",
                      rootCause="the new Glasgow scanner fleet connected with clean session off and a random "
                                "client id on every boot; mqtt-1 filled with stale sessions",
                      summary="Broker session bloat on the north broker, reported through tracking. Ran the "
                              "session prune on mqtt-1; the fleet config was fixed to a stable client id.",
                      runbook="mosquitto-expire-stale-sessions",
                      actions=[("run runbook mosquitto-expire-stale-sessions on mqtt-1", "succeeded",
                                "mosquitto-expire-stale-sessions")])),
    # ---------------- 2025-06
    dict(key="G3", fam="GWSTALE", at="2025-06-03T13:12:00Z", started=6, service="api-gateway",
         severity="high", style="page", labels=page("GatewayUpstream502Rate", "sre", "high", "edge"),
         title="[FIRING:1] GatewayUpstream502Rate api-gateway",
         description="Share of 502 responses for service tracking-api above 5%",
         symptoms=["502"],
         errors=["sum by (service) (rate(kong_http_requests_total{service=\"tracking-api\",code=\"502\"}[5m])) / "
                 "sum by (service) (rate(kong_http_requests_total{service=\"tracking-api\"}[5m])) > 0.05  "
                 "value=0.27"],
         runbook="api-gateway-refresh-upstreams",
         outcome=dict(after=23, by="ben.t",
                      rootCause="a node drain moved tracking-api pods; Kong kept the stale targets",
                      summary="No deploy this time, a node drain. Kong reloaded fleet-wide. Kong upgrade with "
                              "the lower dns_stale_ttl planned.",
                      runbook="api-gateway-refresh-upstreams",
                      actions=[("run runbook api-gateway-refresh-upstreams", "succeeded",
                                "api-gateway-refresh-upstreams")])),
    dict(key="O4", fam="SHIELDSTORE", at="2025-06-24T18:30:00Z", started=30, service="origin-shield",
         severity="high", labels=report("media-platform", "oncall", "aisha.r"),
         title="VOD segments 503 from shield - 'Could not get storage'",
         description="Since ~18:00 about 6% of VOD segment requests return 503 from the shield; live is fine. "
                     "varnishlog shows FetchError 'Could not get storage' and n_lru_limited climbing fast on two "
                     "shield pods. The new 4K documentary series launched at 17:00 and its segments are 3-4x "
                     "the usual size. Certificates fine, packager fine.",
         symptoms=["5xx", "playback-failure", "memory-pressure"],
         errors=["-   FetchError     Could not get storage", "MAIN.n_lru_limited    18233"],
         runbook="origin-shield-rolling-restart",
         outcome=dict(after=50, by="aisha.r",
                      rootCause="malloc storage (8G) filled with large 4K segments; nuke_limit reached before "
                                "enough space could be freed",
                      summary="Shield storage exhaustion on big objects. Rolling restart with storage raised to "
                              "14G and nuke_limit 200 cleared the 503s.",
                      runbook="origin-shield-rolling-restart",
                      actions=[("run runbook origin-shield-rolling-restart with malloc 14G", "succeeded",
                                "origin-shield-rolling-restart")])),
    # ---------------- 2025-07
    dict(key="P4", fam="PGCONN", at="2025-07-02T17:58:00Z", started=18, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "sanjay.p"),
         title="route-planner DB writes timing out (first time on Aurora)",
         description="Plan saves and replans have been failing since 17:40 with connection acquire timeouts from "
                     "RDS Proxy. First time we've seen this since the Aurora move. The proxy dashboard shows "
                     "borrow latency in seconds and most connections pinned. Looks a lot like the queueing we "
                     "used to get on the old pooler.",
         symptoms=["timeouts", "connection-pool-exhausted"],
         errors=["psycopg.OperationalError: connection failed: FATAL:  Timed-out waiting to acquire database "
                 "connection"],
         runbook="aurora-terminate-idle-sessions",
         outcome=dict(after=42, by="ruth.o",
                      rootCause="label-service manifest workers idle in transaction again; on Aurora the pinned "
                                "sessions used up the proxy's connection budget",
                      summary="Same idle-in-transaction cause on the new database. The old PgBouncer runbook "
                              "failed on its first step (no pgbouncer deployment). Terminating the sessions on "
                              "the Aurora writer and capping idle transactions for label_service fixed it.",
                      runbook="aurora-terminate-idle-sessions",
                      actions=[("run runbook pgbouncer-kill-idle-transactions", "failed",
                                "pgbouncer-kill-idle-transactions"),
                               ("run runbook aurora-terminate-idle-sessions (role label_service)", "succeeded",
                                "aurora-terminate-idle-sessions")])),
    dict(key="A4", fam="RMQALARM", at="2025-07-07T07:45:00Z", started=45, service="tracking-api",
         severity="medium", labels=report("parcel-platform", "slack", "marta.s"),
         title="Tracking updates ~40 min behind scans",
         description="Monday morning: tracking events lag about 40 minutes behind scans. scan.events at 1.8M "
                     "ready and climbing, rabbit raised the memory alarm briefly at 07:30 and blocked "
                     "publishers for a minute. tracking-events consumers at 10 pods, all busy. Scanners and the "
                     "MQTT brokers look normal.",
         symptoms=["queue-backlog", "data-stale"],
         errors=["rabbitmq: connection.blocked reason=\"low on memory\""],
         runbook="tracking-scale-event-consumers",
         outcome=dict(after=65, by="marta.s",
                      rootCause="weekend sortation backlog; KEDA floor reset to 10 by a values file merge",
                      summary="Consumer capacity too low for the Monday backlog. Floor raised to 24, lag gone by "
                              "08:45.",
                      runbook="tracking-scale-event-consumers",
                      actions=[("run runbook tracking-scale-event-consumers (min 24)", "succeeded",
                                "tracking-scale-event-consumers")])),
    dict(key="E4", fam="ESFIELD", at="2025-07-09T15:20:00Z", started=25, service="recs-api",
         severity="medium", labels=report("media-platform", "slack", "kenji.w"),
         title="recs slow + some 500s, no deploy",
         description="recs-api p99 1.9s and ~8% 500s. We haven't deployed recs since 4.21 last Wednesday and recs "
                     "pod CPU is normal. The 500s are ES breaker errors.",
         symptoms=["latency-spike", "circuit-breaker"],
         errors=["TransportError(429, 'circuit_breaking_exception', '[parent] Data too large, data for "
                 "[<http_request>] would be [15.9gb/17072935936b], which is larger than the limit of "
                 "[15.1gb/16320875724b]')"],
         deployment=dep("recs-api-4.21.0", "4.21.0", 10180),
         runbook="es-clear-fielddata-cache",
         outcome=dict(after=35, by="ruth.o",
                      rootCause="the editorial analytics export aggregated on the text field section_tags with "
                                "fielddata enabled",
                      summary="Fielddata heap pressure from a new field. Cleared and disabled fielddata on "
                              "section_tags.",
                      runbook="es-clear-fielddata-cache",
                      actions=[("run runbook es-clear-fielddata-cache (articles-v12, section_tags)", "succeeded",
                                "es-clear-fielddata-cache")])),
    dict(key="W3", fam="ESRO", at="2025-07-16T02:15:00Z", started=5, service="elasticsearch",
         severity="critical", style="page", labels=page("ElasticsearchDiskFloodStage", "data-platform", "critical", "search"),
         title="[FIRING:1] ElasticsearchDiskFloodStage elasticsearch",
         description="Data node disk usage above the flood-stage watermark (95%)",
         symptoms=["disk-full"],
         errors=["max by (name) (1 - elasticsearch_filesystem_data_available_bytes / "
                 "elasticsearch_filesystem_data_size_bytes) > 0.95  value=0.957"],
         runbook="es-clear-readonly-block",
         outcome=dict(after=55, by="liam.c",
                      rootCause="ILM delete phase stuck on a closed index for three weeks",
                      summary="Flood stage reached, indices blocked. Deleted expired tracking-events indices, "
                              "lifted the block, fixed the stuck ILM step.",
                      runbook="es-clear-readonly-block",
                      actions=[("run runbook es-clear-readonly-block (tracking-events-2025.03*)", "succeeded",
                                "es-clear-readonly-block")])),
    dict(key="C4", fam="CERT", at="2025-07-22T08:00:00Z", started=0, service="api-gateway",
         severity="high", style="page", labels=page("CertificateExpiringSoon", "sre", "high", "edge"),
         title="[FIRING:1] CertificateExpiringSoon api-gateway",
         description="TLS certificate edge-larkspur-tls expires in less than 7 days",
         symptoms=["cert-expired"],
         errors=["min by (name) (certmanager_certificate_expiration_timestamp_seconds{name=\"edge-larkspur-tls\"} "
                 "- time()) / 86400 < 7  value=5.8"],
         runbook="cert-manager-force-renewal",
         outcome=dict(after=150, by="ben.t",
                      rootCause="the cert-manager controller lost its leader lease during the 10 July node "
                                "upgrade and never took it back; no certificate had been processed since",
                      summary="Nothing was being issued cluster-wide. The runbook restarted the controller, "
                              "issued edge-larkspur-tls again and restarted Kong; three other certificates "
                              "caught up on their own.",
                      runbook="cert-manager-force-renewal",
                      actions=[("run runbook cert-manager-force-renewal for edge-larkspur-tls", "succeeded",
                                "cert-manager-force-renewal")])),
    dict(key="L5", fam="LIVE", cond="packager", at="2025-07-29T19:20:00Z", started=30, service="video-packager",
         severity="high", labels=report("media-platform", "oncall", "joel.b"),
         title="Live rebuffering - packager slow to render playlists",
         description="Rebuffering complaints on the evening live stream. Checked the shield first: its playlists "
                     "are fresh (Age 1-2s, media sequence matches the packager). The packager itself takes 2-3s "
                     "per playlist and pod memory is at 3.6-3.9Gi. 2.9.0 went out on the 21st and reworked the "
                     "live timeline.",
         symptoms=["rebuffering", "latency-spike", "memory-pressure"],
         errors=["live: manifest render channel=news24 rendition=1080p took 2790ms"],
         deployment=dep("video-packager-2.9.0", "2.9.0", 11700),
         runbook="packager-restart-live-workers", trap=["origin-shield-ban-live-manifests"],
         outcome=dict(after=35, by="joel.b",
                      rootCause="packager 2.9.0 reintroduced the live session leak",
                      summary="Packager-side live stall. A rolling restart of the live workers fixed it; 2.9.1 "
                              "with the leak fix shipped on 1 August.",
                      runbook="packager-restart-live-workers",
                      actions=[("run runbook packager-restart-live-workers", "succeeded",
                                "packager-restart-live-workers")])),
    # ---------------- 2025-08
    dict(key="K4", fam="CARRIER", at="2025-08-05T09:45:00Z", started=15, service="label-service",
         severity="high", labels=report("parcel-platform", "slack", "sanjay.p"),
         title="ParcelLink 401s again",
         description="label-service is failing ParcelLink auth since 09:30, same invalid_client as before. "
                     "Partner ops confirm they put the new secret in Vault yesterday.",
         symptoms=["401", "auth-failure"],
         errors=["token request failed: 401 {\"error\":\"invalid_client\",\"error_description\":\"client secret "
                 "expired\"}"],
         runbook="label-sync-carrier-credentials",
         outcome=dict(after=35, by="sanjay.p",
                      rootCause="90-day ParcelLink rotation",
                      summary="Ran the credential sync; labels flowing again at 10:12.",
                      runbook="label-sync-carrier-credentials",
                      actions=[("run runbook label-sync-carrier-credentials (parcellink)", "succeeded",
                                "label-sync-carrier-credentials")])),
    dict(key="R4", fam="REL", at="2025-08-12T13:30:00Z", started=4, service="api-gateway",
         severity="high", style="page", labels=page("GatewayRouteErrorRate", "sre", "high", "edge"),
         title="[FIRING:1] GatewayRouteErrorRate api-gateway",
         description="More than 10% 5xx on route recs-v1",
         symptoms=["5xx"],
         errors=["sum by (route) (rate(kong_http_requests_total{route=\"recs-v1\",code=~\"5..\"}[5m])) / "
                 "sum by (route) (rate(kong_http_requests_total{route=\"recs-v1\"}[5m])) > 0.1  value=0.22"],
         deployment=dep("recs-api-4.23.0", "4.23.0", 9),
         runbook="helm-rollback-release",
         outcome=dict(after=22, by="kenji.w",
                      rootCause="recs-api 4.23.0 dereferenced a missing watch history and returned 500 for new "
                                "users",
                      summary="Gateway alert caused by recs-api's own 500s. Helm rollback to 4.22.1.",
                      runbook="helm-rollback-release",
                      actions=[("run runbook helm-rollback-release on recs-api", "succeeded",
                                "helm-rollback-release")])),
    dict(key="D4", fam="DNS", at="2025-08-14T08:25:00Z", started=15, service="license-server",
         severity="high", labels=report("media-platform", "oncall", "aisha.r"),
         title="license-server intermittent lookup failures",
         description="A few hundred license errors a minute since 08:10. license-server logs i/o timeouts "
                     "resolving the KMS endpoint and the Aurora proxy endpoint, on all pods. RDS Proxy "
                     "connections look normal. CoreDNS pods are CPU-throttled; someone set their limit back to "
                     "200m in the Helm values for the 1.31 upgrade.",
         symptoms=["dns-failure", "playback-failure", "error-rate"],
         errors=["kms: operation error KMS: Decrypt, request send failed, Post "
                 "\"https://kms.eu-west-1.amazonaws.com/\": dial tcp: lookup kms.eu-west-1.amazonaws.com on "
                 "172.20.0.10:53: read udp 10.42.3.17:50212->172.20.0.10:53: i/o timeout"],
         runbook="coredns-scale-out", trap=["aurora-terminate-idle-sessions"],
         outcome=dict(after=35, by="ben.t",
                      rootCause="CoreDNS CPU limit reverted to 200m by the 1.31 upgrade values",
                      summary="Cluster DNS throttled again, seen as DRM license errors. Runbook put the limit "
                              "back to 1 CPU and 10 replicas; values file fixed.",
                      runbook="coredns-scale-out",
                      actions=[("run runbook coredns-scale-out", "succeeded", "coredns-scale-out")])),
    dict(key="Q5", fam="RMQDOWN", at="2025-08-19T03:05:00Z", started=5, service="rabbitmq",
         severity="critical", style="page", labels=page("RabbitMQQuorumQueueNoLeader", "data-platform", "critical", "messaging"),
         title="[FIRING:1] RabbitMQQuorumQueueNoLeader rabbitmq",
         description="Quorum queues without an elected leader",
         symptoms=["queue-unavailable"],
         errors=["sum(rabbitmq_quorum_queues_without_leader) > 0  value=2"],
         runbook="rabbitmq-quorum-grow-members",
         outcome=dict(after=45, by="liam.c",
                      rootCause="spot interruption took two nodes; label.jobs and route.replan lost their "
                                "majority",
                      summary="Quorum queues lost two of three members. Shrunk to the survivor and grew onto "
                              "the replacement nodes.",
                      runbook="rabbitmq-quorum-grow-members",
                      actions=[("run runbook rabbitmq-quorum-grow-members for label.jobs and route.replan",
                                "succeeded", "rabbitmq-quorum-grow-members")])),
    dict(key="M4", fam="MQTT", at="2025-08-21T06:50:00Z", started=45, service="scan-ingest",
         severity="high", labels=report("parcel-platform", "slack", "femi.a"),
         title="scanners disconnecting at Leeds again",
         description="mqtt-0 restarted 3x since 6am, OOM. same as before?",
         symptoms=["device-disconnects", "oom-kill"],
         errors=[],
         runbook="mosquitto-expire-stale-sessions",
         outcome=dict(after=50, by="femi.a",
                      rootCause="summer temp scanners returned to the pool with new client ids",
                      summary="Stale sessions on mqtt-0. Ran the prune and reloaded the broker.",
                      runbook="mosquitto-expire-stale-sessions",
                      actions=[("run runbook mosquitto-expire-stale-sessions on mqtt-0", "succeeded",
                                "mosquitto-expire-stale-sessions")])),
    dict(key="RT5", fam="ROUTE", cond="cpu", at="2025-08-26T03:40:00Z", started=20, service="route-planner",
         severity="high", style="page", labels=page("RouteSolverCPUSaturated", "parcel-platform", "high", "routing"),
         title="[FIRING:1] RouteSolverCPUSaturated route-planner",
         description="Solver pods above 95% of their CPU limit for 20m during the nightly plan",
         symptoms=["high-cpu"],
         errors=["avg(rate(container_cpu_usage_seconds_total{namespace=\"routing\",container=\"solver\"}[5m])) / "
                 "avg(kube_pod_container_resource_limits{namespace=\"routing\",container=\"solver\","
                 "resource=\"cpu\"}) > 0.95  value=0.99"],
         runbook="route-planner-scale-solvers", trap=["route-planner-use-snapshot-matrix"],
         outcome=dict(after=45, by="marta.s",
                      rootCause="bank holiday Monday volume carried into Tuesday's plan; solvers CPU-bound",
                      summary="CPU-bound plan. Solvers scaled to 14, plan done 04:31.",
                      runbook="route-planner-scale-solvers",
                      actions=[("run runbook route-planner-scale-solvers (14 replicas)", "succeeded",
                                "route-planner-scale-solvers")])),
    dict(key="O5", fam="CMSREL", at="2025-08-28T10:40:00Z", started=40, service="cms-api",
         severity="high", labels=report("newsroom-tools", "slack", "priya.n"),
         title="Article saves taking 10+ seconds since CMS 12.4",
         description="Editors say saving an article takes 10-15s since this morning's cms-api 12.4.0 release "
                     "(09:55), some saves fail outright. The slow part is the revisions insert: "
                     "pg_stat_statements shows a new query on article_revisions doing a seq scan over 40M rows. "
                     "Other services on the database are fine and nothing is queueing for connections.",
         symptoms=["latency-spike", "timeouts"],
         errors=["SQLSTATE[57014]: Query canceled: 7 ERROR:  canceling statement due to statement timeout"],
         deployment=dep("cms-api-12.4.0", "12.4.0", 45),
         runbook="helm-rollback-release", trap=["aurora-terminate-idle-sessions"],
         outcome=dict(after=40, by="priya.n",
                      rootCause="cms-api 12.4.0 looked up the previous revision by (article_id, locale) with no "
                                "index on locale",
                      summary="CMS release regression. Helm rollback to 12.3.2; 12.4.1 ships the index.",
                      runbook="helm-rollback-release",
                      actions=[("run runbook helm-rollback-release on cms-api", "succeeded",
                                "helm-rollback-release")])),
    # ---------------- 2025-09
    dict(key="G4", fam="GWSTALE", at="2025-09-04T14:05:00Z", started=20, service="tracking-api",
         severity="medium", labels=report("parcel-platform", "slack", "gosia.k"),
         title="tracking page slow / 502s again?",
         description="getting 502s on track.larkspurparcels.example since the 7.9 deploy ~20 min ago. pods look "
                     "fine to me",
         symptoms=["502"],
         errors=[],
         deployment=dep("tracking-api-7.9.0", "7.9.0", 20),
         runbook="api-gateway-refresh-upstreams",
         outcome=dict(after=25, by="noor.h",
                      rootCause="Kong stale upstream targets after the tracking-api rollout",
                      summary="Gateway held old pod IPs. Kong reloaded; 7.9.0 stayed.",
                      runbook="api-gateway-refresh-upstreams",
                      actions=[("run runbook api-gateway-refresh-upstreams", "succeeded",
                                "api-gateway-refresh-upstreams")])),
    dict(key="P5", fam="PGCONN", at="2025-09-10T17:45:00Z", started=5, service="postgres-shared",
         severity="critical", style="page", labels=page("RDSProxyBorrowLatencyHigh", "data-platform", "critical", "data"),
         title="[FIRING:1] RDSProxyBorrowLatencyHigh postgres-shared",
         description="RDS Proxy larkspur-shared connection borrow latency above 100ms",
         symptoms=["connection-pool-exhausted"],
         errors=["max(aws_rds_database_connections_borrow_latency_average{dbproxyname=\"larkspur-shared\"}) > "
                 "100000  value=2.7e+06"],
         runbook="aurora-terminate-idle-sessions",
         outcome=dict(after=45, by="ruth.o",
                      rootCause="a new label-service worker ran as role label_batch, which had no idle "
                                "transaction cap; its sessions sat idle in transaction",
                      summary="Proxy connection budget eaten by idle transactions again. Terminated them and set "
                              "the cap on label_batch too.",
                      runbook="aurora-terminate-idle-sessions",
                      actions=[("run runbook aurora-terminate-idle-sessions (role label_batch)", "succeeded",
                                "aurora-terminate-idle-sessions")])),
    dict(key="P5R", fam="PGCONN", at="2025-09-10T17:58:00Z", started=18, service="tracking-api",
         severity="high", labels=report("parcel-platform", "slack", "sanjay.p"),
         title="tracking API timeouts - DB?",
         description="tracking /v2/track p99 at 8s with lots of 504s from 17:40. The log says it can't get a DB "
                     "connection. Is this the same as the proxy alert?",
         symptoms=["timeouts", "connection-pool-exhausted"],
         errors=["Error: Timed-out waiting to acquire database connection"],
         runbook="aurora-terminate-idle-sessions",
         outcome=dict(after=37, by="ruth.o",
                      rootCause="same event as {P5}",
                      summary="Re-page of {P5}; tracking recovered when the idle sessions were terminated there.",
                      runbook="aurora-terminate-idle-sessions",
                      actions=[("handled under {P5}: runbook aurora-terminate-idle-sessions", "succeeded",
                                "aurora-terminate-idle-sessions")])),
    dict(key="C5", fam="CERT", at="2025-09-17T06:30:00Z", started=29, service="tracking-api",
         severity="critical", labels=report("parcel-ops", "support", "gosia.k"),
         title="Customers see 'connection not private' on the tracking site",
         description="Social and support are full of screenshots: browsers warn on track.larkspurparcels.example "
                     "since ~06:05. The served certificate expired at 06:01. tracking-api pods are fine and "
                     "the app works if you click through.",
         symptoms=["tls-error", "cert-expired"],
         errors=["curl: (60) SSL certificate problem: certificate has expired"],
         runbook="cert-manager-force-renewal",
         outcome=dict(after=105, by="ben.t",
                      rootCause="Let's Encrypt refused orders for parcels-larkspur-tls after a CAA record added "
                                "during a DNS clean-up allowed only the corporate CA",
                      summary="Tracking site certificate expired. CAA record fixed to include letsencrypt.org, "
                              "certificate issued again, Kong reloaded.",
                      runbook="cert-manager-force-renewal",
                      actions=[("add letsencrypt.org to CAA for larkspurparcels.example", "succeeded", None),
                               ("run runbook cert-manager-force-renewal for parcels-larkspur-tls", "succeeded",
                                "cert-manager-force-renewal")])),
    dict(key="C5R", fam="CERT", at="2025-09-17T06:41:00Z", started=40, service="api-gateway",
         severity="critical", style="page", labels=page("ProbeTLSCertExpired", "sre", "critical", "edge"),
         title="[FIRING:1] ProbeTLSCertExpired api-gateway",
         description="Blackbox probe sees an expired certificate on track.larkspurparcels.example",
         symptoms=["cert-expired"],
         errors=["probe_ssl_earliest_cert_expiry{instance=\"https://track.larkspurparcels.example\"} - time() < 0  "
                 "value=-2460"],
         runbook="cert-manager-force-renewal",
         outcome=None),
    dict(key="O3", fam="SCTE", at="2025-09-23T18:05:00Z", started=7, service="video-packager",
         severity="critical", labels=report("media-platform", "oncall", "joel.b"),
         title="news24 live down - packager pods crash-looping",
         description="Live channel news24 went black at 17:58. All four live packager pods restart with a "
                     "segfault in the SCTE-35 parser, always right after an ad-break marker from playout. VOD is "
                     "unaffected. Memory is normal and nothing has been deployed on the packager since 2.9.1 in "
                     "August. The playout team changed ad-insertion vendor today.",
         symptoms=["crash-loop", "playback-failure"],
         errors=["scte35: splice_insert parse: unexpected descriptor tag 0x02 length 255",
                 "SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x7f3a2c"],
         runbook=None, trap=["packager-restart-live-workers"],
         outcome=dict(after=85, by="joel.b",
                      rootCause="the new ad-insertion vendor sent splice_insert with a malformed descriptor; the "
                                "packager's parser dereferenced a nil descriptor",
                      summary="Poison SCTE-35 marker crashed the live packager. A restart crashed again at the "
                              "next marker. Playout disabled SCTE passthrough; packager 2.9.2 skips unknown "
                              "descriptors.",
                      runbook=None,
                      actions=[("run runbook packager-restart-live-workers", "failed",
                                "packager-restart-live-workers"),
                               ("playout disables SCTE-35 passthrough on news24", "succeeded", None)])),
    # ---------------- 2025-10
    dict(key="W4", fam="ESRO", at="2025-10-01T09:12:00Z", started=17, service="tracking-api",
         severity="high", labels=report("parcel-platform", "oncall", "marta.s"),
         title="tracking events index read-only again",
         description="Indexer writes to tracking-events-2025.10 rejected with the flood-stage read-only block "
                     "since 08:55; new parcels don't show up in search. ES disk at 95%. Today's index rolled over "
                     "with the new mapping that roughly doubled document size.",
         symptoms=["read-only-index", "data-stale"],
         errors=["cluster_block_exception: index [tracking-events-2025.10] blocked by: [TOO_MANY_REQUESTS/12/disk "
                 "usage exceeded flood-stage watermark, index has read-only-allow-delete block];"],
         runbook="es-clear-readonly-block",
         outcome=dict(after=43, by="liam.c",
                      rootCause="new tracking-events mapping doubled document size; retention not adjusted",
                      summary="Flood stage again. Deleted indices older than 60 days, lifted the block, "
                              "retention cut to 60 days and two data nodes added.",
                      runbook="es-clear-readonly-block",
                      actions=[("run runbook es-clear-readonly-block (tracking-events older than 60 days)",
                                "succeeded", "es-clear-readonly-block")])),
    dict(key="E5", fam="ESFIELD", at="2025-10-07T11:30:00Z", started=30, service="cms-api",
         severity="medium", labels=report("newsroom-tools", "slack", "priya.n"),
         title="CMS article search returns nothing / errors",
         description="Editors' search in the CMS fails on and off ('search backend error'). cms-api logs show ES "
                     "breaker exceptions. Publishing still works fine, so it's not the read-only thing from "
                     "April.",
         symptoms=["circuit-breaker", "error-rate"],
         errors=["Elastic\\Elasticsearch\\Exception\\ClientResponseException: 429 Too Many Requests: "
                 "circuit_breaking_exception [parent] Data too large"],
         runbook="es-clear-fielddata-cache", trap=["es-clear-readonly-block"],
         outcome=dict(after=35, by="ruth.o",
                      rootCause="election results dashboard aggregated on the text field constituency",
                      summary="Fielddata heap pressure. Cleared and disabled fielddata on constituency; the "
                              "dashboard now uses the keyword sub-field.",
                      runbook="es-clear-fielddata-cache",
                      actions=[("run runbook es-clear-fielddata-cache (articles-v12, constituency)", "succeeded",
                                "es-clear-fielddata-cache")])),
    dict(key="R5", fam="REL", at="2025-10-14T13:05:00Z", started=15, service="recs-api",
         severity="high", labels=report("media-platform", "slack", "kenji.w"),
         title="recs-api 4.26.0 throwing 500s for logged-out users",
         description="Since 4.26.0 (12:50) the For You rail errors for anonymous users: recs-api returns 500 with "
                     "a KeyError on 'profile'. Kong shows upstream status 500 coming from recs-api itself, not "
                     "connection errors, so not the gateway thing. ES is fine.",
         symptoms=["5xx", "error-rate"],
         errors=["KeyError: 'profile'  File \"/app/recs/rank.py\", line 212, in personalise"],
         deployment=dep("recs-api-4.26.0", "4.26.0", 15),
         runbook="helm-rollback-release", trap=["api-gateway-refresh-upstreams"],
         outcome=dict(after=25, by="kenji.w",
                      rootCause="recs-api 4.26.0 assumed a profile for every request",
                      summary="Release regression; Helm rollback to 4.25.0.",
                      runbook="helm-rollback-release",
                      actions=[("run runbook helm-rollback-release on recs-api", "succeeded",
                                "helm-rollback-release")])),
    dict(key="L6", fam="LIVE", cond="shield", at="2025-10-21T20:15:00Z", started=20, service="origin-shield",
         severity="high", labels=report("media-platform", "oncall", "aisha.r"),
         title="live stream behind / stuck for viewers",
         description="Viewers report news24 live is a minute behind and freezing. The shield returns playlists "
                     "with Age 60+ and X-Cache HIT, while the packager direct is current and quick. Backend "
                     "health for the packager director shows 'sick' on two shield pods.",
         symptoms=["stale-manifest", "rebuffering"],
         errors=["varnishadm backend.list: boot.packager_live_2  probe  sick  2/5"],
         runbook="origin-shield-ban-live-manifests",
         outcome=dict(after=25, by="aisha.r",
                      rootCause="two shield pods came back from a node replacement on the old VCL with grace on "
                                "playlists",
                      summary="Stale playlists from grace on two pods. Ban plus live-nograce VCL on all pods; "
                              "the VCL is now baked into the image.",
                      runbook="origin-shield-ban-live-manifests",
                      actions=[("run runbook origin-shield-ban-live-manifests", "succeeded",
                                "origin-shield-ban-live-manifests")])),
    dict(key="D5", fam="DNS", at="2025-10-28T08:20:00Z", started=20, service="label-service",
         severity="high", labels=report("parcel-platform", "oncall", "gosia.k"),
         title="Label creation failing for several carriers",
         description="Since ~08:00 label requests fail for ParcelLink, Swiftpost and the own-fleet API alike. Not "
                     "auth: the label-service log shows UnknownHostException for the carrier hostnames and for "
                     "the database proxy too. route-planner reports the same kind of DNS errors.",
         symptoms=["dns-failure", "error-rate"],
         errors=["java.net.UnknownHostException: api.parcellink.example: Temporary failure in name resolution"],
         runbook="coredns-scale-out", trap=["label-sync-carrier-credentials"],
         outcome=dict(after=35, by="ben.t",
                      rootCause="CoreDNS replicas scaled to 2 by the autoscaler after a ConfigMap reset during "
                                "cluster add-on upgrade",
                      summary="Cluster DNS overloaded again. Scaled CoreDNS and restored the autoscaler "
                              "parameters.",
                      runbook="coredns-scale-out",
                      actions=[("run runbook coredns-scale-out", "succeeded", "coredns-scale-out")])),
    # ---------------- 2025-11
    dict(key="K5", fam="CARRIER", at="2025-11-04T10:00:00Z", started=20, service="label-service",
         severity="high", labels=report("parcel-platform", "slack", "femi.a"),
         title="ParcelLink auth errors",
         description="invalid_client from the ParcelLink token endpoint since 09:40. Vault has the new secret "
                     "(updated yesterday).",
         symptoms=["auth-failure", "401"],
         errors=["c.l.label.carrier.ParcelLinkClient - token request failed: 401 {\"error\":\"invalid_client\"}"],
         runbook="label-sync-carrier-credentials",
         outcome=dict(after=35, by="femi.a",
                      rootCause="90-day ParcelLink rotation",
                      summary="Credential sync run; labels back at 10:30.",
                      runbook="label-sync-carrier-credentials",
                      actions=[("run runbook label-sync-carrier-credentials (parcellink)", "succeeded",
                                "label-sync-carrier-credentials")])),
    dict(key="M5", fam="MQTT", at="2025-11-11T07:15:00Z", started=25, service="scan-ingest",
         severity="critical", labels=report("parcel-platform", "oncall", "marta.s"),
         title="Scanner disconnect storm at Daventry + broker OOM",
         description="Peak season shift: mqtt-0 was OOMKilled at 06:52 and 07:08 and 3.9k scanners reconnect "
                     "each time. Persistence file is 5.2 GB. RabbitMQ and the bridge are fine.",
         symptoms=["device-disconnects", "oom-kill"],
         errors=["OOMKilled: container mosquitto exit code 137"],
         runbook="mosquitto-expire-stale-sessions",
         outcome=None),
    dict(key="P6", fam="PGCONN", at="2025-11-18T18:05:00Z", started=25, service="label-service",
         severity="high", labels=report("parcel-platform", "oncall", "sanjay.p"),
         title="label-service batch jobs stuck, DB connection timeouts",
         description="End-of-day manifest run stuck at 40%. label-service and, per #ops-media, license-server "
                     "both get 'Timed-out waiting to acquire database connection' from the proxy. "
                     "pg_stat_activity shows ~90 sessions 'idle in transaction' from the manifest workers.",
         symptoms=["jobs-stuck", "connection-pool-exhausted"],
         errors=["org.postgresql.util.PSQLException: FATAL: Timed-out waiting to acquire database connection"],
         runbook="aurora-terminate-idle-sessions",
         outcome=dict(after=45, by="ruth.o",
                      rootCause="peak-season manifest worker count doubled; a carrier API slowdown kept their "
                                "transactions open past the 90s cap window",
                      summary="Idle transactions on Aurora again. Terminated them; the manifest workers now "
                              "commit before calling carriers (label-service 3.31).",
                      runbook="aurora-terminate-idle-sessions",
                      actions=[("run runbook aurora-terminate-idle-sessions (role label_service)", "succeeded",
                                "aurora-terminate-idle-sessions")])),
    dict(key="G5", fam="GWSTALE", at="2025-11-20T11:40:00Z", started=15, service="cms-api",
         severity="high", labels=report("newsroom-tools", "slack", "priya.n"),
         title="CMS API 502s through gateway after cms-api rollout",
         description="The apps' article feed (api.larkspur.example/cms/) gets 502s since cms-api 12.9 rolled out "
                     "at 11:25, about 25% of requests. cms-api pods are healthy and answer directly. Kong's log "
                     "says connect() refused to old pod IPs.",
         symptoms=["502", "connection-refused"],
         errors=["connect() failed (111: Connection refused) while connecting to upstream, upstream: "
                 "\"http://10.42.19.8:9000/cms/v3/feed\""],
         deployment=dep("cms-api-12.9.0", "12.9.0", 15),
         runbook="api-gateway-refresh-upstreams",
         outcome=dict(after=25, by="noor.h",
                      rootCause="Kong stale upstream targets after the cms-api rollout",
                      summary="Gateway held terminated pod IPs. Kong reloaded fleet-wide.",
                      runbook="api-gateway-refresh-upstreams",
                      actions=[("run runbook api-gateway-refresh-upstreams", "succeeded",
                                "api-gateway-refresh-upstreams")])),
    dict(key="C6", fam="CERT", at="2025-11-25T06:40:00Z", started=10, service="origin-shield",
         severity="high", labels=report("media-platform", "oncall", "joel.b"),
         title="video.larkspur.example cert expires in ~40h, cert-manager stuck",
         description="Blackbox shows the video certificate expiring in 40 hours. The Certificate resource has "
                     "been failing since 1 November: 'Error presenting challenge: Cloudflare API error 10000 "
                     "Authentication error'. The shield itself is fine for now.",
         symptoms=["cert-expired", "tls-error"],
         errors=["cert-manager/challenges \"msg\"=\"propagation check failed\" \"error\"=\"Cloudflare API Error "
                 "10000: Authentication error\""],
         runbook="cert-manager-force-renewal",
         outcome=dict(after=150, by="ben.t",
                      rootCause="the Cloudflare API token reached its one-year expiry set in November 2024",
                      summary="Same token expiry as the very first video certificate incident, a year later. New "
                              "token (no expiry, rotated by Vault now), certificate issued, shield reloaded.",
                      runbook="cert-manager-force-renewal",
                      actions=[("replace Cloudflare token", "succeeded", None),
                               ("run runbook cert-manager-force-renewal for video-larkspur-tls", "succeeded",
                                "cert-manager-force-renewal")])),
    dict(key="A3", fam="RMQALARM", at="2025-11-28T09:30:00Z", started=30, service="cms-api",
         severity="high", labels=report("newsroom-tools", "slack", "priya.n"),
         title="Publish queue stuck - cms-api blocked by RabbitMQ",
         description="Editors' publish jobs stay 'queued'. cms-api's log says its RabbitMQ connection is blocked "
                     "(memory alarm). The parcel folks say scan.events is at ~4M messages with Black Friday "
                     "scan volume and the tracking consumers are at 16.",
         symptoms=["publisher-blocked", "jobs-stuck"],
         errors=["PhpAmqpLib\\Exception\\AMQPConnectionBlockedException: Connection is blocked due to low "
                 "resources"],
         runbook="tracking-scale-event-consumers",
         outcome=dict(after=70, by="marta.s",
                      rootCause="Black Friday scan volume against a consumer floor of 16",
                      summary="RabbitMQ memory alarm from the scan.events backlog blocked every publisher, the "
                              "newsroom included. Consumer floor 40, max 60; alarm cleared 10:25.",
                      runbook="tracking-scale-event-consumers",
                      actions=[("run runbook tracking-scale-event-consumers (min 40, max 60)", "succeeded",
                                "tracking-scale-event-consumers")])),
    dict(key="RT6", fam="ROUTE", cond="matrix", at="2025-11-29T03:55:00Z", started=25, service="route-planner",
         severity="high", labels=report("parcel-platform", "oncall", "sanjay.p"),
         title="North plan stalled - maps API 429",
         description="Provider throttling us again (429 with retry-after 30). Solvers are idle-ish at ~25% CPU. "
                     "Volumes are high (Black Friday) but the solvers aren't the bottleneck.",
         symptoms=["missed-cutoff", "timeouts"],
         errors=["matrix.fetch: provider returned 429 Too Many Requests (retry-after=30), attempt 3/8"],
         runbook="route-planner-use-snapshot-matrix",
         outcome=None),
]


# ---------------------------------------------------------------- build
def parse(ts):
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def fmt(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build():
    incidents = sorted(INCIDENTS, key=lambda inc: inc["at"])
    names = {inc["key"]: "ml-%04d" % (idx + 1) for idx, inc in enumerate(incidents)}
    by_key = {inc["key"]: inc for inc in incidents}

    def sub(text):
        for key, name in names.items():
            text = text.replace("{%s}" % key, name)
        return text

    outcome_at = {}
    for inc in incidents:
        if inc.get("outcome"):
            outcome_at[inc["key"]] = parse(inc["at"]) + timedelta(minutes=inc["outcome"]["after"])

    events = []
    start = "2024-09-30T09:00:00Z"
    topo = "\n".join("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)) for svc, deps in TOPOLOGY.items())
    events.append((start, 0, {"at": start, "type": "apply", "object": {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
        "data": {"topology": topo + "\n"}}}))

    catalog_times = {}

    def runbook_event(at, name):
        catalog_times[name] = parse(at)
        return (at, 1, {"at": at, "type": "apply", "object": {
            "apiVersion": API, "kind": "Runbook", "metadata": {"name": name}, "spec": RUNBOOKS[name]}})

    for name in DAY_ONE:
        events.append(runbook_event(start, name))
    for at, name in RUNBOOK_ADDED:
        events.append(runbook_event(at, name))
    assert set(catalog_times) == set(RUNBOOKS), set(RUNBOOKS) ^ set(catalog_times)

    for mig in MIGRATIONS:
        events.append((mig["at"], 1, {"at": mig["at"], "type": "apply", "object": {
            "apiVersion": API, "kind": "ArchitectureMigration", "metadata": {"name": mig["name"]},
            "spec": mig["spec"]}}))
    for con in CONTRADICTIONS:
        for key in con["memories"]:
            assert outcome_at[key] < parse(con["at"]), (con["name"], key)
        events.append((con["at"], 1, {"at": con["at"], "type": "apply", "object": {
            "apiVersion": API, "kind": "Contradiction", "metadata": {"name": con["name"]},
            "spec": {"topic": con["topic"], "memories": [names[k] for k in con["memories"]],
                     "claims": [{"memory": names[k], "claim": c} for k, c in con["claims"]],
                     "resolution": con["state"]}}}))

    failed_in_family = []  # (outcome time, family, runbook)
    for inc in incidents:
        if inc.get("outcome"):
            for _text, result, rb in inc["outcome"]["actions"]:
                if rb and result == "failed":
                    failed_in_family.append((outcome_at[inc["key"]], inc["fam"], rb))

    for inc in incidents:
        at = parse(inc["at"])
        in_catalog = {name for name, t in catalog_times.items() if t <= at}
        precedents = [other for other in incidents
                      if other["fam"] == inc["fam"] and other["key"] != inc["key"]
                      and other["key"] in outcome_at and outcome_at[other["key"]] < at]
        precedents.sort(key=lambda other: outcome_at[other["key"]], reverse=True)
        truth_rb = inc["runbook"]
        assert truth_rb is None or truth_rb in in_catalog, (inc["key"], truth_rb)
        unsafe = set(inc.get("trap", []))
        for mig in MIGRATIONS:
            if parse(mig["at"]) <= at and (inc["fam"] in mig["families"]
                                           or inc["service"] == mig["spec"]["targetService"]):
                unsafe.update(mig["spec"]["impactedRunbooks"])
        for when, fam, rb in failed_in_family:
            if fam == inc["fam"] and when < at:
                unsafe.add(rb)
        unsafe.discard(truth_rb)
        for rb in inc.get("trap", []):
            assert rb in in_catalog, (inc["key"], rb)
        unsafe &= in_catalog
        spec = {"service": inc["service"], "severity": inc["severity"], "title": inc["title"]}
        if inc.get("description"):
            spec["description"] = inc["description"]
        spec["symptoms"] = inc["symptoms"]
        spec["errorSignatures"] = inc["errors"]
        if inc.get("deployment"):
            spec["deployment"] = inc["deployment"]
        spec["startedAt"] = fmt(at - timedelta(minutes=inc["started"]))
        spec["labels"] = inc["labels"]
        truth = {"precedents": [names[p["key"]] for p in precedents], "runbook": truth_rb,
                 "novel": not precedents, "unsafeRunbooks": sorted(unsafe)}
        events.append((inc["at"], 2, {"at": inc["at"], "type": "incident", "object": {
            "apiVersion": API, "kind": "Incident", "metadata": {"name": names[inc["key"]]}, "spec": spec},
            "truth": truth}))
        if inc.get("outcome"):
            out = inc["outcome"]
            out_at = fmt(outcome_at[inc["key"]])
            resolution = {"rootCause": sub(out["rootCause"]), "summary": sub(out["summary"])}
            if out.get("runbook"):
                assert out["runbook"] in catalog_times and catalog_times[out["runbook"]] <= at
                resolution["runbook"] = out["runbook"]
            resolution["actions"] = [{"action": sub(text), "result": result}
                                     for text, result, _rb in out["actions"]]
            resolution["confirmedBy"] = out["by"]
            events.append((out_at, 3, {"at": out_at, "type": "outcome", "incident": names[inc["key"]],
                                       "resolution": resolution}))
    events.sort(key=lambda ev: (ev[0], ev[1]))
    return [ev[2] for ev in events], names, by_key


def main():
    events, _names, _by_key = build()
    out = Path(__file__).with_name("history.jsonl")
    with out.open("w") as handle:
        for event in events:
            handle.write(json.dumps(event, ensure_ascii=False) + "\n")
    print("wrote %d events to %s" % (len(events), out.name))


if __name__ == "__main__":
    main()
