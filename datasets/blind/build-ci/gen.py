#!/usr/bin/env python3
"""Build the Quarry CI incident history (a blind replay history).

Everything here is invented. The script keeps the catalog, the incidents and
their outcomes as structured data, derives the answer key (precedents, novel,
unsafe runbooks) from the failure families, checks it, and writes
history.jsonl next to itself.
"""
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml  # PyYAML, only to render the topology

HERE = Path(__file__).resolve().parent
OUT = HERE / "history.jsonl"


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------
# Topology
# --------------------------------------------------------------------------
TOPOLOGY_V1 = {
    "edge-gateway": ["web-api", "hook-receiver", "log-stream", "artifact-registry"],
    "web-api": ["pg-main", "redis-cache", "job-scheduler", "log-stream",
                "secrets-broker", "billing-meter", "artifact-registry"],
    "hook-receiver": ["nats-bus", "redis-cache", "secrets-broker", "pg-main"],
    "job-scheduler": ["pg-main", "redis-cache", "nats-bus", "runner-fleet"],
    "runner-fleet": ["build-cache", "artifact-registry", "secrets-broker",
                     "log-stream", "nats-bus"],
    "build-cache": [],
    "artifact-registry": ["pg-main", "redis-cache"],
    "log-stream": ["redis-cache", "nats-bus"],
    "secrets-broker": ["vault", "pg-main"],
    "vault": [],
    "billing-meter": ["pg-main", "nats-bus"],
    "pg-main": [],
    "redis-cache": [],
    "nats-bus": [],
}
TOPOLOGY_V2 = dict(TOPOLOGY_V1)
TOPOLOGY_V2["log-stream"] = ["nats-bus"]  # live log buffer left redis-cache


def topology_cm(topo):
    body = "".join(f"{svc}: {{dependsOn: [{', '.join(deps)}]}}\n" for svc, deps in topo.items())
    yaml.safe_load(body)  # must parse
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "service-topology", "namespace": "recall-system",
                         "labels": {"recall.dev/topology": "true"}},
            "data": {"topology": body}}


# --------------------------------------------------------------------------
# Runbooks
# --------------------------------------------------------------------------
def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


KUBECTL = "bitnami/kubectl:1.30.4"
OPSCTL = "ghcr.io/quarryci/opsctl:2.6.1"
PSQL = "postgres:16.4-alpine"

RUNBOOKS = {
    "helm-rollback-release": {
        "title": "Roll a Helm release back to its previous revision",
        "services": ["web-api", "job-scheduler", "hook-receiver", "log-stream", "runner-fleet",
                     "billing-meter", "artifact-registry", "secrets-broker"],
        "symptoms": ["5xx", "latency-spike", "error-rate-spike", "build-failures", "oom-kill"],
        "steps": [
            step("rollback-to-previous", "alpine/helm:3.15.4",
                 ["helm", "rollback", "$(RELEASE)", "0", "--namespace", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
                 ["helm", "history", "$(RELEASE)", "--namespace", "$(NAMESPACE)", "--max", "5"],
                 ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "--namespace", "$(NAMESPACE)", "--wait"],
                 "medium", "every pod of one release, replaced one at a time", 420),
        ],
    },
    "k8s-rollout-restart": {
        "title": "Rolling restart of one Deployment",
        "services": ["log-stream", "web-api", "hook-receiver", "job-scheduler",
                     "artifact-registry", "billing-meter"],
        "symptoms": ["memory-growth", "oom-kill", "websocket-disconnects", "stuck-jobs"],
        "steps": [
            step("rollout-restart", KUBECTL,
                 ["kubectl", "rollout", "restart", "deployment/$(SERVICE)", "-n", "$(NAMESPACE)"],
                 ["kubectl", "get", "deployment/$(SERVICE)", "-n", "$(NAMESPACE)", "-o", "wide"],
                 [], "low", "pods of one Deployment, maxUnavailable 25%", 60),
            step("wait-for-rollout", KUBECTL,
                 ["kubectl", "rollout", "status", "deployment/$(SERVICE)", "-n", "$(NAMESPACE)", "--timeout=10m"],
                 ["kubectl", "get", "pods", "-n", "$(NAMESPACE)", "-l", "app=$(SERVICE)"],
                 [], "low", "read only", 300),
        ],
    },
    "runners-raise-asg-max": {
        "title": "Raise the max size of a runner node group (cluster-autoscaler ASG)",
        "services": ["runner-fleet", "job-scheduler"],
        "symptoms": ["pods-pending", "queue-backlog"],
        "steps": [
            step("raise-asg-max", "amazon/aws-cli:2.17.20",
                 ["aws", "autoscaling", "update-auto-scaling-group", "--auto-scaling-group-name", "$(ASG_NAME)",
                  "--max-size", "$(NEW_MAX)"],
                 ["aws", "autoscaling", "describe-auto-scaling-groups", "--auto-scaling-group-names", "$(ASG_NAME)",
                  "--query", "AutoScalingGroups[0].[MinSize,MaxSize,DesiredCapacity]"],
                 ["aws", "autoscaling", "update-auto-scaling-group", "--auto-scaling-group-name", "$(ASG_NAME)",
                  "--max-size", "$(OLD_MAX)"],
                 "medium", "one runner node group; EC2 spend grows with it", 90),
        ],
    },
    "runners-prune-node-images": {
        "title": "Free containerd storage on runner nodes under DiskPressure",
        "services": ["runner-fleet"],
        "symptoms": ["disk-pressure", "pod-evictions", "build-failures"],
        "steps": [
            step("cordon-node", KUBECTL,
                 ["kubectl", "cordon", "$(NODE)"],
                 ["kubectl", "describe", "node", "$(NODE)"],
                 ["kubectl", "uncordon", "$(NODE)"],
                 "low", "one runner node stops taking new jobs", 10),
            step("prune-images", KUBECTL,
                 ["kubectl", "debug", "node/$(NODE)", "-n", "runners", "--profile=sysadmin", "--image=busybox:1.36",
                  "--", "chroot", "/host", "crictl", "rmi", "--prune"],
                 ["kubectl", "debug", "node/$(NODE)", "-n", "runners", "--profile=sysadmin", "--image=busybox:1.36",
                  "--", "chroot", "/host", "df", "-h", "/var/lib/containerd"],
                 [], "medium", "cached images on one node; next jobs there pull again", 240),
            step("uncordon-node", KUBECTL,
                 ["kubectl", "uncordon", "$(NODE)"],
                 ["kubectl", "get", "node", "$(NODE)"],
                 ["kubectl", "cordon", "$(NODE)"],
                 "low", "one runner node", 10),
        ],
    },
    "pgbouncer-raise-pool-size": {
        "title": "Raise default_pool_size of one PgBouncer pool in front of pg-main",
        "services": ["pg-main", "web-api", "job-scheduler", "billing-meter", "artifact-registry"],
        "symptoms": ["connection-exhaustion", "db-timeouts", "latency-spike"],
        "steps": [
            step("patch-pool-size", KUBECTL,
                 ["kubectl", "-n", "data", "patch", "configmap", "pgbouncer-pools", "--type", "merge",
                  "-p", "{\"data\":{\"$(POOL)_pool_size\":\"$(NEW_SIZE)\"}}"],
                 ["kubectl", "-n", "data", "get", "configmap", "pgbouncer-pools", "-o", "yaml"],
                 ["kubectl", "-n", "data", "patch", "configmap", "pgbouncer-pools", "--type", "merge",
                  "-p", "{\"data\":{\"$(POOL)_pool_size\":\"$(OLD_SIZE)\"}}"],
                 "medium", "one PgBouncer pool; more server connections on pg-main", 20),
            step("reload-pgbouncer", PSQL,
                 ["psql", "-h", "pgbouncer.data", "-p", "6432", "-U", "pgbouncer_admin", "pgbouncer", "-c", "RELOAD"],
                 ["psql", "-h", "pgbouncer.data", "-p", "6432", "-U", "pgbouncer_admin", "pgbouncer", "-c", "SHOW POOLS"],
                 ["psql", "-h", "pgbouncer.data", "-p", "6432", "-U", "pgbouncer_admin", "pgbouncer", "-c", "RELOAD"],
                 "low", "PgBouncer config reload, no client disconnects", 10),
        ],
    },
    "cache-add-shards": {
        "title": "Add shards to the remote build cache ring",
        "services": ["build-cache", "runner-fleet"],
        "symptoms": ["slow-builds", "cache-timeouts", "latency-spike"],
        "steps": [
            step("scale-shards", KUBECTL,
                 ["kubectl", "-n", "build-cache", "scale", "statefulset/cache-shard", "--replicas=$(NEW_REPLICAS)"],
                 ["kubectl", "-n", "build-cache", "get", "statefulset/cache-shard", "-o", "wide"],
                 ["kubectl", "-n", "build-cache", "scale", "statefulset/cache-shard", "--replicas=$(OLD_REPLICAS)"],
                 "medium", "whole cache ring; a share of keys is rehashed to the new shards", 300),
        ],
    },
    "registry-refresh-upstream-credentials": {
        "title": "Refresh Docker Hub credentials on the registry's pull-through proxy",
        "services": ["artifact-registry", "runner-fleet"],
        "symptoms": ["image-pull-backoff", "rate-limited"],
        "steps": [
            step("sync-upstream-credentials", OPSCTL,
                 ["opsctl", "registry", "upstream", "set-credentials", "--endpoint", "dockerhub-proxy",
                  "--from-vault", "kv/registry/dockerhub-robot"],
                 ["opsctl", "registry", "upstream", "ping", "--endpoint", "dockerhub-proxy"],
                 ["opsctl", "registry", "upstream", "set-credentials", "--endpoint", "dockerhub-proxy",
                  "--from-vault", "kv/registry/dockerhub-robot", "--version", "$(PREVIOUS_VERSION)"],
                 "low", "pulls of public images through the proxy", 30),
        ],
    },
    "scheduler-cap-tenant-concurrency": {
        "title": "Enforce a hard concurrent-job cap on one organization",
        "services": ["job-scheduler", "runner-fleet"],
        "symptoms": ["pods-pending", "queue-backlog", "cost-spike"],
        "steps": [
            step("set-org-cap", OPSCTL,
                 ["opsctl", "scheduler", "org-limit", "set", "--org", "$(ORG)", "--max-concurrent", "$(LIMIT)",
                  "--enforce", "--reason", "$(INCIDENT)"],
                 ["opsctl", "scheduler", "org-usage", "--org", "$(ORG)"],
                 ["opsctl", "scheduler", "org-limit", "set", "--org", "$(ORG)", "--max-concurrent", "$(PREVIOUS_LIMIT)"],
                 "medium", "one customer's queued jobs wait longer; running jobs are not stopped", 20),
        ],
    },
    "secrets-broker-reauth": {
        "title": "Make secrets-broker log in to Vault again",
        "services": ["secrets-broker", "runner-fleet", "web-api", "hook-receiver"],
        "symptoms": ["secret-fetch-errors", "auth-errors", "build-failures"],
        "steps": [
            step("rolling-relogin", KUBECTL,
                 ["kubectl", "-n", "secrets", "rollout", "restart", "deployment/secrets-broker"],
                 ["kubectl", "-n", "secrets", "exec", "deploy/secrets-broker", "--", "broker", "token", "lookup"],
                 [], "low", "secrets-broker pods one at a time", 120),
            step("selftest", OPSCTL,
                 ["opsctl", "secrets", "selftest", "--path", "ci/data/healthcheck"],
                 ["opsctl", "secrets", "selftest", "--path", "ci/data/healthcheck", "--read-only"],
                 [], "low", "read only", 15),
        ],
    },
    "hooks-reload-webhook-secret": {
        "title": "Load the current GitHub App webhook secret into hook-receiver",
        "services": ["hook-receiver", "edge-gateway"],
        "symptoms": ["webhook-failures", "auth-errors"],
        "steps": [
            step("force-secret-sync", KUBECTL,
                 ["kubectl", "-n", "hooks", "annotate", "externalsecret/github-app-webhook",
                  "force-sync=$(NOW)", "--overwrite"],
                 ["kubectl", "-n", "hooks", "get", "externalsecret/github-app-webhook", "-o",
                  "jsonpath={.status.refreshTime}"],
                 [], "low", "one Kubernetes Secret", 30),
            step("restart-hook-receiver", KUBECTL,
                 ["kubectl", "-n", "hooks", "rollout", "restart", "deployment/hook-receiver"],
                 ["kubectl", "-n", "hooks", "get", "deployment/hook-receiver"],
                 [], "low", "hook-receiver pods one at a time; GitHub retries nothing, deliveries in flight may fail", 90),
        ],
    },
    "logstream-drain-redis-buffer": {
        "title": "Drain the live-log buffer in redis-cache past a stuck archiver",
        "services": ["log-stream", "runner-fleet", "web-api"],
        "symptoms": ["log-gaps", "stuck-jobs"],
        "steps": [
            step("archive-drain", OPSCTL,
                 ["opsctl", "logs", "archive-drain", "--backend", "redis", "--skip-oversized", "--max-log-mb", "1024"],
                 ["opsctl", "logs", "archive-status", "--backend", "redis"],
                 [], "medium", "archiver workers; oversized logs are parked for a later upload", 600),
            step("trim-archived-streams", OPSCTL,
                 ["opsctl", "logs", "trim-archived", "--backend", "redis", "--older-than", "10m"],
                 ["opsctl", "logs", "trim-archived", "--backend", "redis", "--older-than", "10m", "--dry-run"],
                 [], "medium", "Redis streams of jobs whose logs are already in S3", 120),
        ],
    },
    "billing-throttle-stripe-push": {
        "title": "Throttle billing-meter's usage pushes to Stripe",
        "services": ["billing-meter"],
        "symptoms": ["consumer-lag", "rate-limited"],
        "steps": [
            step("lower-push-rate", KUBECTL,
                 ["kubectl", "-n", "billing", "set", "env", "deployment/billing-meter",
                  "STRIPE_PUSH_CONCURRENCY=4", "STRIPE_PUSH_MAX_RPS=60"],
                 ["kubectl", "-n", "billing", "set", "env", "deployment/billing-meter", "--list"],
                 ["kubectl", "-n", "billing", "set", "env", "deployment/billing-meter",
                  "STRIPE_PUSH_CONCURRENCY=$(OLD_CONCURRENCY)", "STRIPE_PUSH_MAX_RPS-"],
                 "low", "billing-meter pods; metering is slower but steady", 90),
        ],
    },
    "cache-offload-hot-keys": {
        "title": "Serve a shard's hottest cache keys from S3 by presigned redirect",
        "services": ["build-cache", "runner-fleet"],
        "symptoms": ["slow-builds", "cache-timeouts"],
        "steps": [
            step("offload-hot-keys", OPSCTL,
                 ["opsctl", "cache", "offload", "--shard", "$(SHARD)", "--top", "20", "--min-size", "256MiB",
                  "--to", "s3-presigned", "--ttl", "24h"],
                 ["opsctl", "cache", "hot-keys", "--shard", "$(SHARD)", "--top", "20"],
                 ["opsctl", "cache", "offload", "--shard", "$(SHARD)", "--clear"],
                 "low", "reads of up to 20 keys move from one shard to S3", 45),
        ],
    },
    "pg-terminate-idle-in-tx": {
        "title": "End sessions idle in transaction on pg-main",
        "services": ["pg-main", "web-api", "job-scheduler", "billing-meter", "artifact-registry"],
        "symptoms": ["connection-exhaustion", "db-timeouts"],
        "steps": [
            step("terminate-idle-in-tx", PSQL,
                 ["psql", "-h", "pg-main-rw.data", "-U", "ops_admin", "-d", "quarry", "-c",
                  "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'idle in transaction' "
                  "AND now() - state_change > interval '$(MIN_IDLE)'"],
                 ["psql", "-h", "pg-main-rw.data", "-U", "ops_admin", "-d", "quarry", "-c",
                  "SELECT application_name, count(*), max(now() - state_change) FROM pg_stat_activity "
                  "WHERE state = 'idle in transaction' GROUP BY 1"],
                 [], "high", "open transactions of the matched sessions are rolled back", 15),
        ],
    },
    "runners-raise-nodepool-limit": {
        "title": "Raise the CPU limit of a Karpenter NodePool for runners",
        "services": ["runner-fleet", "job-scheduler"],
        "symptoms": ["pods-pending", "queue-backlog"],
        "steps": [
            step("raise-nodepool-limit", KUBECTL,
                 ["kubectl", "patch", "nodepool", "$(NODEPOOL)", "--type", "merge",
                  "-p", "{\"spec\":{\"limits\":{\"cpu\":\"$(NEW_CPU_LIMIT)\"}}}"],
                 ["kubectl", "get", "nodepool", "$(NODEPOOL)", "-o", "jsonpath={.spec.limits} {.status.resources}"],
                 ["kubectl", "patch", "nodepool", "$(NODEPOOL)", "--type", "merge",
                  "-p", "{\"spec\":{\"limits\":{\"cpu\":\"$(OLD_CPU_LIMIT)\"}}}"],
                 "medium", "one NodePool; EC2 spend grows with it", 30),
        ],
    },
    "vault-raft-drop-stale-peer": {
        "title": "Remove a stale Raft peer from Vault and rejoin the node",
        "services": ["vault", "secrets-broker"],
        "symptoms": ["secret-fetch-errors"],
        "steps": [
            step("remove-stale-peer", "hashicorp/vault:1.17.5",
                 ["vault", "operator", "raft", "remove-peer", "$(STALE_PEER_ID)"],
                 ["vault", "operator", "raft", "list-peers"],
                 [], "high", "Vault Raft membership", 20),
            step("rejoin-node", KUBECTL,
                 ["kubectl", "-n", "vault", "delete", "pod", "$(VAULT_POD)"],
                 ["kubectl", "-n", "vault", "get", "pods", "-o", "wide"],
                 [], "medium", "one Vault pod", 120),
        ],
    },
    "logstream-drain-jetstream": {
        "title": "Drain the JOBLOGS JetStream stream past a stuck archiver",
        "services": ["log-stream", "runner-fleet", "web-api", "nats-bus"],
        "symptoms": ["log-gaps", "stuck-jobs"],
        "steps": [
            step("archive-drain", OPSCTL,
                 ["opsctl", "logs", "archive-drain", "--backend", "jetstream", "--stream", "JOBLOGS",
                  "--skip-oversized", "--max-log-mb", "1024"],
                 ["nats", "consumer", "info", "JOBLOGS", "joblogs-archiver"],
                 [], "medium", "archiver consumer; oversized logs are parked for a later upload", 600),
            step("purge-archived-subjects", "natsio/nats-box:0.14.5",
                 ["opsctl", "logs", "purge-archived", "--backend", "jetstream", "--stream", "JOBLOGS", "--older-than", "10m"],
                 ["nats", "stream", "info", "JOBLOGS"],
                 [], "medium", "messages of jobs whose logs are already in S3", 120),
        ],
    },
}


def runbook_obj(name, spec):
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Runbook",
            "metadata": {"name": name}, "spec": spec}


RUNBOOK_DATES = [
    ("2024-10-01T00:00", ["helm-rollback-release", "k8s-rollout-restart", "runners-raise-asg-max",
                          "runners-prune-node-images", "pgbouncer-raise-pool-size", "cache-add-shards"]),
    ("2024-10-24T10:00", ["registry-refresh-upstream-credentials"]),
    ("2024-11-07T14:00", ["scheduler-cap-tenant-concurrency"]),
    ("2024-11-14T11:00", ["secrets-broker-reauth"]),
    ("2024-12-03T15:00", ["hooks-reload-webhook-secret"]),
    ("2024-12-05T16:30", ["logstream-drain-redis-buffer"]),
    ("2025-01-08T12:00", ["billing-throttle-stripe-push"]),
    ("2025-01-13T10:00", ["cache-offload-hot-keys"]),
    ("2025-02-06T09:00", ["pg-terminate-idle-in-tx"]),
    ("2025-04-10T13:00", ["runners-raise-nodepool-limit"]),
    ("2025-06-06T15:00", ["vault-raft-drop-stale-peer"]),
    ("2025-07-17T10:00", ["logstream-drain-jetstream"]),
]

# --------------------------------------------------------------------------
# Migrations and contradictions
# --------------------------------------------------------------------------
MIGRATIONS = [
    {"at": "2025-04-14T06:00", "name": "runner-fleet-asg-to-karpenter", "families": ["CAPACITY", "NOISY"],
     "spec": {"targetService": "runner-fleet", "migrationDate": "2025-04-14",
              "oldArch": "EKS managed node groups (one ASG per runner pool) scaled by cluster-autoscaler; "
                         "fleet capacity bounded by each ASG's max size",
              "newArch": "Karpenter NodePools runners-general and runners-arm64 with one EC2NodeClass; "
                         "capacity bounded by each NodePool's spec.limits, no ASGs behind runner nodes",
              "impactedRunbooks": ["runners-raise-asg-max"],
              "impactedFixKeywords": ["update-auto-scaling-group", "asg max size", "node group max",
                                      "max node group size"],
              "confidenceDeduction": 30}},
    {"at": "2025-07-21T05:00", "name": "log-stream-redis-to-jetstream", "families": ["LOGBUF"],
     "spec": {"targetService": "log-stream", "migrationDate": "2025-07-21",
              "oldArch": "live build logs buffered as one Redis Stream per job on the shared redis-cache; "
                         "the archiver copies finished streams to S3 and trims them",
              "newArch": "live build logs in the NATS JetStream stream JOBLOGS on nats-bus (file storage, "
                         "max_bytes 500 GiB, subjects joblogs.<job>.chunk); the archiver is a durable pull consumer",
              "impactedRunbooks": ["logstream-drain-redis-buffer"],
              "impactedFixKeywords": ["XTRIM", "redis buffer", "OOM command not allowed", "trim-archived"],
              "confidenceDeduction": 28}},
]


def contradiction(name, topic, memories, claims, state, note=None):
    res = {"state": state}
    if note:
        res["note"] = note
    return {"apiVersion": "recall.dev/v1alpha1", "kind": "Contradiction",
            "metadata": {"name": name},
            "spec": {"topic": topic, "memories": memories, "claims": claims, "resolution": res}}


CACHE_CLAIMS_1 = [
    {"memory": "ci-0005", "claim": "adding two cache shards cleared the build-cache timeouts"},
    {"memory": "ci-0016", "claim": "adding cache shards made the timeouts worse (hit rate fell while the ring "
                                   "rehashed and the load just moved to another shard); serving the hottest keys "
                                   "from S3 fixed it"},
]
CACHE_CLAIMS_2 = CACHE_CLAIMS_1 + [
    {"memory": "ci-0023", "claim": "serving hot keys from S3 changed nothing; adding shards fixed it"},
    {"memory": "ci-0037", "claim": "serving the hottest key from S3 fixed a single saturated shard within minutes"},
]
PG_CLAIMS_1 = [
    {"memory": "ci-0008", "claim": "raising the PgBouncer pool size ended the connection waits"},
    {"memory": "ci-0020", "claim": "raising the pool size made it worse (pg-main ran out of slots sooner); "
                                   "ending the sessions idle in transaction fixed it"},
]
PG_CLAIMS_2 = PG_CLAIMS_1 + [
    {"memory": "ci-0031", "claim": "ending idle-in-transaction sessions of registry-gc fixed connection exhaustion"},
    {"memory": "ci-0045", "claim": "there were no idle-in-transaction sessions to end; raising the pool size fixed it"},
]

CONTRADICTIONS = [
    ("2025-01-14T10:30", contradiction(
        "build-cache-timeouts-response", "remote build cache slow, runners time out on it",
        ["ci-0005", "ci-0016"], CACHE_CLAIMS_1, "open")),
    ("2025-02-10T11:00", contradiction(
        "pg-main-connection-exhaustion", "pg-main connection exhaustion behind PgBouncer",
        ["ci-0008", "ci-0020"], PG_CLAIMS_1, "open")),
    ("2025-05-12T09:30", contradiction(
        "build-cache-timeouts-response", "remote build cache slow, runners time out on it",
        ["ci-0005", "ci-0016", "ci-0023", "ci-0037"], CACHE_CLAIMS_2, "reconciled",
        "Both fixes hold, under different conditions. Look at per-shard load first. When every shard is near "
        "its CPU limit and the request rate has grown, add shards. When one shard is saturated (NIC near "
        "10 Gbit/s or CPU at 100%) while the others are idle, a few large hot keys cause it: serve them from S3 "
        "and do not add shards, since the rehash lowers the hit rate and the hot key just lands on another shard.")),
    ("2025-06-16T14:00", contradiction(
        "pg-main-connection-exhaustion", "pg-main connection exhaustion behind PgBouncer",
        ["ci-0008", "ci-0020", "ci-0031", "ci-0045"], PG_CLAIMS_2, "reconciled",
        "Both fixes hold, under different conditions. Check pg_stat_activity first. If many sessions sit "
        "'idle in transaction' holding locks (a batch job or an export keeping a transaction open), end them "
        "and never raise pool sizes, which only gets pg-main to max_connections faster. If clients wait at "
        "PgBouncer (cl_waiting high, sv_active at the pool size) while queries are short and nothing is idle "
        "in transaction, the pool is too small for the traffic: raise it.")),
]

# --------------------------------------------------------------------------
# Incidents
# --------------------------------------------------------------------------
TEAM = {"runner-fleet": "ci-runtime", "job-scheduler": "ci-runtime", "build-cache": "ci-runtime",
        "artifact-registry": "ci-runtime", "hook-receiver": "integrations", "web-api": "devex",
        "log-stream": "devex", "secrets-broker": "security-eng", "vault": "security-eng",
        "billing-meter": "billing", "pg-main": "data-platform", "edge-gateway": "platform-infra"}


def page(n, at, fam, svc, sev, alert, desc, expr, value, sym=None, started=8, rb=None, out=None, cond=None):
    return dict(n=n, at=at, fam=fam, cond=cond, svc=svc, sev=sev, kind="page", title=f"{alert} {svc}",
                alert=alert, desc=desc, sym=sym or [], errs=[f"{expr} [value={value}]"], deploy=None,
                source="alertmanager", started=started, rb=rb, out=out)


def report(n, at, fam, svc, sev, title, desc, sym, errs, source="slack", deploy=None, started=20, rb=None,
           out=None, cond=None):
    return dict(n=n, at=at, fam=fam, cond=cond, svc=svc, sev=sev, kind="report", title=title, desc=desc,
                sym=sym, errs=errs, deploy=deploy, source=source, started=started, rb=rb, out=out)


def dep(svc, rev, minutes):
    return {"id": f"{svc}-{rev}", "revision": rev, "environment": "production", "minutesSinceDeploy": minutes}


def outcome(after, by, root, summary, actions, runbook=None):
    return dict(after=after, by=by, root=root, summary=summary, actions=actions, runbook=runbook)


def ok(text, rb=None):
    return (text, "succeeded", rb)


def bad(text, rb=None):
    return (text, "failed", rb)


def part(text, rb=None):
    return (text, "partial", rb)


def run(rb, detail=""):
    return f"run runbook {rb}" + (f" ({detail})" if detail else "")


EXPR_PENDING = 'sum(kube_pod_status_phase{namespace="runners",phase="Pending"}) > 40'
EXPR_PULL = 'sum(kube_pod_container_status_waiting_reason{namespace="runners",reason="ImagePullBackOff"}) > 10'
EXPR_SIG = ('sum(rate(hook_receiver_signature_failures_total{provider="github"}[5m])) / '
            'sum(rate(hook_receiver_requests_total{provider="github"}[5m])) > 0.05')
EXPR_DISK = 'count(kube_node_status_condition{condition="DiskPressure",status="true",node=~"runner-.*"}) > 0'
EXPR_BILL = 'max(billing_meter_oldest_unacked_event_age_seconds{stream="USAGE"}) > 1800'
EXPR_VAULT = ('sum(rate(secrets_broker_vault_requests_total{code=~"4..|5.."}[5m])) / '
              'sum(rate(secrets_broker_vault_requests_total[5m])) > 0.1')
EXPR_MEM = ('max(container_memory_working_set_bytes{namespace="logs",container="log-stream"} / '
            'container_spec_memory_limit_bytes{namespace="logs",container="log-stream"}) > 0.85')

D_PENDING = "Build runner pods have been Pending for more than 10 minutes."
D_PULL = "Runner pods cannot pull job or service container images."
D_SIG = "More than 5% of incoming GitHub webhooks fail signature verification."
D_DISK = "One or more runner nodes report DiskPressure."
D_BILL = "Usage events are waiting more than 30 minutes to be metered."
D_VAULT = "secrets-broker gets errors from Vault on more than 10% of requests."

INCIDENTS = []  # incidents in time order

# 1 CAPACITY
INCIDENTS.append(page(1, "2024-10-07T07:48", "CAPACITY", "runner-fleet", "high", "RunnerPodsPending", D_PENDING,
              EXPR_PENDING, 212, sym=["pods-pending"], started=12, rb="runners-raise-asg-max",
              out=outcome(55, "tomasz.w",
                          "Monday-morning build surge reached the max size (120) of the runners-general node group; "
                          "cluster-autoscaler could not add nodes.",
                          "Pending runner pods climbed to about 210 from 07:30 UTC as European customers started the "
                          "week. cluster-autoscaler logged 'max node group size reached' for runners-general, which "
                          "was at its max of 120 nodes; load was spread over many orgs. Raised the ASG max to 180 with "
                          "runners-raise-asg-max. The autoscaler added 38 nodes within 6 minutes and the pending "
                          "pods were gone by 08:35.",
                          [ok(run("runners-raise-asg-max", "runners-general 120 -> 180"), "runners-raise-asg-max")],
                          runbook="runners-raise-asg-max")))

# 2 REL
INCIDENTS.append(report(2, "2024-10-11T15:20", "REL", "web-api", "high",
                "web-api: pipelines list p95 went from 280 ms to 4.1 s after 2024.41.2",
                "Since 2024.41.2 rolled out at 14:52 the GET /api/v2/orgs/{org}/pipelines endpoint is slow for "
                "orgs with many pipelines: p95 4.1 s, and about 3% of those requests hit the 5 s gateway timeout "
                "and come back as 504. pg-main CPU went from 35% to 70% in the same window. In traces the number "
                "of queries per request jumped from 4 to around 120.",
                ["latency-spike", "5xx", "db-load"],
                ["upstream request timeout: GET /api/v2/orgs/northwind-ci/pipelines 504",
                 "pipelines.List: 118 queries in 3.9s (slow request threshold 1s)"],
                deploy=dep("web-api", "2024.41.2", 28), started=25, rb="helm-rollback-release",
                out=outcome(40, "chen-li",
                            "2024.41.2 loaded each pipeline's last run with a separate query (N+1) in the "
                            "pipelines list handler.",
                            "The pipelines list got slow right after web-api 2024.41.2; traces showed ~120 queries "
                            "per request instead of 4 and pg-main CPU doubled. Rolled web-api back to 2024.41.1 with "
                            "helm-rollback-release; p95 was back at 300 ms within 5 minutes and pg-main CPU at 35%. "
                            "The batch-loading fix shipped in 2024.41.3.",
                            [ok(run("helm-rollback-release", "web-api 2024.41.2 -> 2024.41.1"), "helm-rollback-release")],
                            runbook="helm-rollback-release")))

# 3 DISK
INCIDENTS.append(report(3, "2024-10-16T13:05", "DISK", "runner-fleet", "medium",
                "Build pods evicted mid-job on a handful of runner nodes",
                "Customers report jobs dying halfway with 'The node was low on resource: ephemeral-storage'. It's "
                "6 nodes, all in runners-general and all up for 9+ days. df on one of them shows /var/lib/containerd "
                "at 96%. Other nodes look fine.",
                ["pod-evictions", "disk-pressure", "build-failures"],
                ["The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 4%.",
                 "eviction_manager.go: must evict pod(s) to reclaim ephemeral-storage"],
                started=35, rb="runners-prune-node-images",
                out=outcome(70, "marcus",
                            "Unused job images and docker-in-docker layer snapshots piled up in /var/lib/containerd "
                            "on long-lived runner nodes; image GC did not keep up and kubelet evicted build pods.",
                            "Six runner nodes that had been up for more than nine days had /var/lib/containerd over "
                            "95% full, and kubelet evicted running build pods for ephemeral storage. Ran "
                            "runners-prune-node-images on each (cordon, crictl rmi --prune, uncordon); each node freed "
                            "180-240 GB and the evictions stopped. Follow-up: lower imageGCHighThresholdPercent on "
                            "runner nodes.",
                            [ok(run("runners-prune-node-images", "6 nodes"), "runners-prune-node-images")],
                            runbook="runners-prune-node-images")))

# 4 PULLRATE
INCIDENTS.append(page(4, "2024-10-22T10:14", "PULLRATE", "runner-fleet", "high", "RunnerImagePullBackOff", D_PULL,
              EXPR_PULL, 64, started=20, rb=None,
              out=outcome(95, "nadia",
                          "The Docker Hub access token of the registry's pull-through proxy (endpoint dockerhub-proxy) "
                          "expired; the proxy fell back to anonymous pulls and hit Docker Hub's pull rate limit.",
                          "From 09:50 runner pods failed to pull public images (node, python and postgres service "
                          "containers) through artifact-registry's Docker Hub proxy. Registry logs showed 429 "
                          "toomanyrequests from registry-1.docker.io. A rolling restart of artifact-registry changed "
                          "nothing. The Docker Hub token on the proxy endpoint had expired the day before; created a "
                          "new token, stored it in Vault and set it on the endpoint by hand. Pulls recovered within "
                          "minutes.",
                          [bad(run("k8s-rollout-restart", "artifact-registry"), "k8s-rollout-restart"),
                           ok("create a new Docker Hub token and set it on the dockerhub-proxy endpoint by hand")])))

# 5 CACHE (all shards busy)
INCIDENTS.append(report(5, "2024-10-29T16:30", "CACHE", "build-cache", "high",
                "Remote build cache slow: p99 GET 3.8 s, builds falling back to local",
                "Since about 15:40 UTC the build cache p99 GET latency is 3.8 s (normal 120 ms). All six cache-shard "
                "pods sit at 95-100% of their 4-core CPU limit. Request rate is 2.1x last Tuesday, mostly from the "
                "enterprise tenant that onboarded yesterday (about 9k new jobs a day). Runners time out on the cache "
                "and build from scratch, so median job duration is up 40%.",
                ["slow-builds", "cache-timeouts", "latency-spike"],
                ["remote cache: GET ac/5f0c9e21...: context deadline exceeded (timeout 2s); continuing without cache"],
                started=50, rb="cache-add-shards", cond="all-shards",
                out=outcome(50, "chen-li",
                            "Request volume doubled after a large tenant onboarded; every cache shard was CPU-bound.",
                            "All six build-cache shards were at their CPU limit after request volume doubled, and "
                            "runners gave up on the cache after 2 s. Scaled cache-shard from 6 to 8 with "
                            "cache-add-shards. The rehash cost about 15 minutes of lower hit rate, then p99 fell to "
                            "180 ms and shard CPU to 60%.",
                            [ok(run("cache-add-shards", "6 -> 8"), "cache-add-shards")],
                            runbook="cache-add-shards")))

# 6 NOISY
INCIDENTS.append(report(6, "2024-11-04T14:12", "NOISY", "runner-fleet", "high",
                "runner pods pending again, node group maxed",
                "pending pods ~380, queue wait going up for everyone. runners-general is at 180/180. most of the "
                "running pods seem to be one org pushing some giant matrix build.",
                ["pods-pending", "queue-backlog"],
                ["dispatch: org=tallgrass-bio running=522 limit=0 queued=1140",
                 "scale_up: max node group size reached for runners-general"],
                started=15, rb=None,
                out=outcome(120, "tomasz.w",
                            "tallgrass-bio's plan had been migrated with concurrency limit 0 (unlimited), and a "
                            "1,024-job matrix build took most of the runner fleet.",
                            "About 400 runner pods were Pending and other customers' jobs waited over 25 minutes. "
                            "Raising the node group max from 180 to 240 (runners-raise-asg-max) only let more of "
                            "tallgrass-bio's matrix start: the new nodes filled with their jobs within 10 minutes, the "
                            "queue for everyone else did not move, and EC2 spend jumped. The scheduler showed limit=0 "
                            "for the org since last week's plan migration. Set the org's max concurrent jobs to 100 "
                            "with opsctl by hand and put the ASG max back to 180; the queue for other orgs drained in "
                            "15 minutes.",
                            [bad(run("runners-raise-asg-max", "runners-general 180 -> 240"), "runners-raise-asg-max"),
                             ok("set max concurrent jobs of org tallgrass-bio to 100 with opsctl by hand"),
                             ok("put the runners-general max back to 180")])))

# 7 VAULTTOK
INCIDENTS.append(report(7, "2024-11-12T09:25", "VAULTTOK", "runner-fleet", "critical",
                "Builds failing at secrets step for many customers",
                "Since around 09:00 UTC we've had 40+ tickets: jobs fail at 'Injecting secrets' with a 403. It "
                "happens for every org we checked, GitHub and GitLab projects alike. Jobs without secrets run fine.",
                ["build-failures", "secret-fetch-errors"],
                ["Error: failed to fetch secrets for job 8812341: secrets-broker returned 403: permission denied"],
                source="support", started=27, rb=None,
                out=outcome(45, "elif.k",
                            "secrets-broker's Vault token reached its 768h max TTL; the broker renewed it up to the "
                            "limit and never logged in again.",
                            "Every secret read failed with 403 permission denied from 08:58. secrets-broker's Vault "
                            "token had been renewed since its last deploy 32 days earlier and hit the max TTL; the "
                            "broker does not log in again when renewal fails. Restarted the secrets-broker deployment "
                            "by hand; the pods logged in through Kubernetes auth and secret reads recovered at 09:41. "
                            "Bug filed for re-login on renew failure.",
                            [ok("kubectl rollout restart deployment/secrets-broker by hand")])))

# 8 PGCONN (pool too small)
INCIDENTS.append(report(8, "2024-11-19T13:40", "PGCONN", "job-scheduler", "high",
                "job-scheduler dispatch slow, waiting on pgbouncer",
                "Dispatch latency p95 is 9 s (normal under 1 s) since 13:10 and the queue is growing. pgbouncer "
                "SHOW POOLS for quarry/scheduler: cl_waiting 180, sv_active 40 of 40, maxwait 7 s. The queries "
                "themselves are fast (p99 30 ms in pg_stat_statements); nothing long-running, nothing idle in "
                "transaction. Runner heartbeat traffic is up about 40% since last week's fleet growth.",
                ["connection-exhaustion", "queue-backlog", "latency-spike"],
                ["pgx: acquire conn: timeout after 5s (pool scheduler)",
                 "pgbouncer: pool quarry/scheduler cl_waiting=180 sv_active=40 maxwait=7"],
                started=30, rb="pgbouncer-raise-pool-size", cond="pool-small",
                out=outcome(35, "chen-li",
                            "The scheduler's PgBouncer pool (40 server connections) was too small for heartbeat and "
                            "dispatch traffic after the fleet grew.",
                            "Scheduler requests queued at PgBouncer while pg-main itself had spare connections and "
                            "short queries. Raised the scheduler pool from 40 to 70 with pgbouncer-raise-pool-size; "
                            "cl_waiting dropped to 0 within a minute and dispatch p95 went back to 600 ms. pg-main was "
                            "at 210 of 500 connections afterwards.",
                            [ok(run("pgbouncer-raise-pool-size", "scheduler 40 -> 70"), "pgbouncer-raise-pool-size")],
                            runbook="pgbouncer-raise-pool-size")))

# 9 HOOKSIG
INCIDENTS.append(page(9, "2024-11-26T09:06", "HOOKSIG", "hook-receiver", "critical", "WebhookSignatureRejects", D_SIG,
              EXPR_SIG, 0.97, started=6, rb=None,
              out=outcome(80, "marcus",
                          "The quarterly rotation changed the GitHub App webhook secret in Vault and on GitHub, but "
                          "hook-receiver kept the old one: its ExternalSecret refreshes every 24 h and the pods read "
                          "the secret only at startup.",
                          "From 08:55 almost every GitHub delivery failed HMAC verification, so pushes and pull "
                          "requests did not start builds. A rolling restart of hook-receiver (k8s-rollout-restart) "
                          "brought the pods back with the same old secret because the Kubernetes Secret had not "
                          "synced yet. Forced the ExternalSecret to sync and restarted hook-receiver again; "
                          "verification recovered at 10:18. Redelivered the failed deliveries from the GitHub App "
                          "settings.",
                          [bad(run("k8s-rollout-restart", "hook-receiver"), "k8s-rollout-restart"),
                           ok("force the github-app-webhook ExternalSecret to sync and restart hook-receiver by hand"),
                           ok("redeliver failed GitHub deliveries from 08:55 to 10:18")])))

# 10 LOGBUF
INCIDENTS.append(report(10, "2024-12-02T11:30", "LOGBUF", "log-stream", "high",
                 "Live logs blank for new jobs, runners can't append log chunks",
                 "New jobs show 'Waiting for logs...' forever in the dashboard; jobs that started before about 11:05 "
                 "still stream. Log shipping errors on the runner side come from redis: 'OOM command not allowed when "
                 "used memory > maxmemory'. redis-cache used_memory is at its 24 GB maxmemory, and the log buffer "
                 "keys account for 21 GB of it. The archiver's throughput graph went to zero at 10:20.",
                 ["log-gaps", "stuck-jobs"],
                 ["XADD joblog:9120034 failed: OOM command not allowed when used memory > 'maxmemory'",
                  "archiver: job 9087112 chunk upload in progress (31m12s, 3.1 GiB)"],
                 started=25, rb=None,
                 out=outcome(110, "elif.k",
                             "Every archiver worker got stuck uploading one 3.1 GiB job log to S3, so finished jobs' "
                             "streams were never moved out of redis and the log buffer filled redis-cache.",
                             "Log appends failed with redis OOM because the archiver had stopped moving finished "
                             "jobs' logs to S3. A rolling restart of log-stream (k8s-rollout-restart) did not help: "
                             "after the restart the archiver picked the same oversized log first and stalled again. "
                             "Ran the archiver drain by hand with --skip-oversized, then trimmed the streams it had "
                             "archived; redis usage fell from 24 GB to 6 GB and appends resumed at 13:10. Runners had "
                             "kept the unsent chunks and uploaded them afterwards.",
                             [bad(run("k8s-rollout-restart", "log-stream"), "k8s-rollout-restart"),
                              ok("run the archiver drain with --skip-oversized and trim archived streams by hand")])))

# 11 WSLEAK
INCIDENTS.append(page(11, "2024-12-09T03:12", "WSLEAK", "log-stream", "medium", "LogStreamMemoryHigh",
              "log-stream pod memory above 85% of its limit for 15 minutes.", EXPR_MEM, 0.93,
              sym=["memory-growth"], started=15, rb="k8s-rollout-restart",
              out=outcome(40, "nadia",
                          "log-stream leaks a goroutine and its send buffer for every websocket that is closed "
                          "without a close frame (laptop sleep, proxy idle cut), so memory grows for days.",
                          "All log-stream pods were at 88-94% of their memory limit, growing steadily since the last "
                          "deploy 11 days earlier, with 410k goroutines for about 3k live viewers. A rolling restart "
                          "with k8s-rollout-restart brought memory down to 15%; viewers reconnected by themselves. "
                          "Leak tracked in DEVX-2291.",
                          [ok(run("k8s-rollout-restart", "log-stream"), "k8s-rollout-restart")],
                          runbook="k8s-rollout-restart")))

# 12 CAPACITY
INCIDENTS.append(report(12, "2024-12-12T08:20", "CAPACITY", "job-scheduler", "high",
                 "Queue wait p95 14 min, runner node group at max",
                 "Build queue wait p95 is 14 minutes and rising, 250 runner pods Pending. runners-general is at its "
                 "max of 180 and cluster-autoscaler logs 'max node group size reached'. Load is spread over many "
                 "orgs (top org has 6% of running jobs); it's the pre-holiday release rush.",
                 ["queue-backlog", "pods-pending"],
                 ["scale_up: max node group size reached for runners-general (180)"],
                 started=25, rb="runners-raise-asg-max",
                 out=outcome(30, "tomasz.w",
                             "Organic demand during the pre-holiday release rush exceeded the 180-node max of "
                             "runners-general.",
                             "Queue wait rose to 14 minutes with load spread across many orgs and runners-general at "
                             "its max. Raised the max from 180 to 240 with runners-raise-asg-max; 45 nodes joined and "
                             "the queue wait was under a minute by 08:50.",
                             [ok(run("runners-raise-asg-max", "runners-general 180 -> 240"), "runners-raise-asg-max")],
                             runbook="runners-raise-asg-max")))

# 13 DISK
INCIDENTS.append(page(13, "2024-12-17T22:40", "DISK", "runner-fleet", "medium", "RunnerNodeDiskPressure", D_DISK,
              EXPR_DISK, 4, started=5, rb="runners-prune-node-images",
              out=outcome(45, "hiro.t",
                          "Old images and dind snapshots filled /var/lib/containerd on four long-lived runner nodes.",
                          "Four runner nodes reported DiskPressure and had started evicting build pods; all four had "
                          "been up for over a week with /var/lib/containerd above 94%. Ran runners-prune-node-images "
                          "on each; DiskPressure cleared within 10 minutes.",
                          [ok(run("runners-prune-node-images", "4 nodes"), "runners-prune-node-images")],
                          runbook="runners-prune-node-images")))

# 14 REL
INCIDENTS.append(report(14, "2024-12-20T16:05", "REL", "web-api", "medium", "dashboard 500s on org settings",
                 "org settings page 500s for everyone since the deploy. started right after 2024.51.0 went out.",
                 ["5xx"],
                 ["panic: runtime error: invalid memory address or nil pointer dereference [orgs.(*Handler).Settings]"],
                 deploy=dep("web-api", "2024.51.0", 12), started=10, rb="helm-rollback-release",
                 out=outcome(25, "bjorn.h",
                             "A nil pointer in 2024.51.0's org settings handler for orgs without an SSO configuration.",
                             "Org settings returned 500 right after web-api 2024.51.0. Rolled back to 2024.50.3 with "
                             "helm-rollback-release and the page worked again; fixed in 2024.51.1.",
                             [ok(run("helm-rollback-release", "web-api 2024.51.0 -> 2024.50.3"), "helm-rollback-release")],
                             runbook="helm-rollback-release")))

# 15 BILLING
INCIDENTS.append(page(15, "2025-01-02T01:10", "BILLING", "billing-meter", "medium", "BillingMeterLag", D_BILL,
              EXPR_BILL, 2710, sym=["consumer-lag"], started=10, rb=None,
              out=outcome(150, "jules.a",
                          "At the start of the month invoice finalization and usage pushes both hit Stripe; Stripe "
                          "answered 429 and billing-meter retried at once with 16 concurrent pushes, so almost nothing "
                          "got through.",
                          "billing-meter's oldest unmetered usage event grew past 45 minutes after midnight UTC while "
                          "December invoices were being finalized. Its logs were nearly all 429 rate_limit answers from "
                          "Stripe's usage records endpoint. Lowered STRIPE_PUSH_CONCURRENCY from 16 to 4 and set a "
                          "60 requests/s client limit by hand; the 429s stopped and the backlog was gone by 05:20. "
                          "No usage was lost: events stay in the USAGE stream until acknowledged.",
                          [ok("lower Stripe push concurrency and add a client-side rate limit by hand (kubectl set env)")])))

# 16 CACHE (one hot shard)
INCIDENTS.append(report(16, "2025-01-07T15:10", "CACHE", "build-cache", "high",
                 "Build cache slow again, but only cache-shard-3 is busy",
                 "Cache p99 GET is 2.9 s and runners are timing out on it. Unlike October, only cache-shard-3 is "
                 "hot: CPU at 100% and its NIC at 9.6 Gbit/s, while the other seven shards are under 20% CPU. Overall "
                 "request rate is normal for a Tuesday. The top keys on shard 3 are a handful of large blobs (about "
                 "2.8 GB) fetched by thousands of jobs from one monorepo org.",
                 ["slow-builds", "cache-timeouts"],
                 ["remote cache: GET cas/9ad1b7f0... (2.8 GiB): context deadline exceeded; continuing without cache",
                  "cache-shard-3: tx 9.6 Gbit/s of 10 Gbit/s"],
                 started=30, rb=None, cond="hot-shard",
                 out=outcome(140, "marcus",
                             "One org's monorepo restored a 2.8 GB dependency archive from the cache in every job; all "
                             "requests for that key landed on cache-shard-3 and saturated its network.",
                             "Added two shards with cache-add-shards (8 -> 10) since that fixed the October slowdown. "
                             "It made things worse: the rehash dropped the hit rate from 91% to 64% for half an hour, "
                             "and the hot archive simply moved to cache-shard-7, which saturated in turn. Put the five "
                             "hottest keys on the S3 redirect list by hand so runners fetch them from S3 with presigned "
                             "URLs; shard load evened out and p99 was back at 150 ms at 17:30. Scaled back to 8 shards "
                             "the next day.",
                             [bad(run("cache-add-shards", "8 -> 10"), "cache-add-shards"),
                              ok("serve the five hottest keys from S3 by presigned redirect, by hand")])))

# 17 VAULTTOK
INCIDENTS.append(page(17, "2025-01-14T04:50", "VAULTTOK", "secrets-broker", "critical", "SecretsBrokerVaultErrors", D_VAULT,
              EXPR_VAULT, 1.0, started=7, rb="secrets-broker-reauth",
              out=outcome(35, "hiro.t",
                          "secrets-broker's Vault token reached its max TTL again, 32 days after the December deploy; "
                          "the re-login fix had not shipped yet.",
                          "All Vault calls from secrets-broker failed with 403 permission denied from 04:41, so jobs "
                          "with secrets failed. Same cause as ci-0007. Ran secrets-broker-reauth; the pods logged in "
                          "again and the selftest passed at 05:20.",
                          [ok(run("secrets-broker-reauth"), "secrets-broker-reauth")],
                          runbook="secrets-broker-reauth")))

# 18 PULLRATE
INCIDENTS.append(report(18, "2025-01-21T11:45", "PULLRATE", "runner-fleet", "high",
                 "ImagePullBackOff on public images, Docker Hub rate limit",
                 "About a third of jobs fail to start: service containers like postgres:16 and node:20 stay in "
                 "ImagePullBackOff, and the kubelet events mention 'toomanyrequests'. Images from our own registry "
                 "projects pull fine.",
                 ["image-pull-backoff", "build-failures", "rate-limited"],
                 ['Failed to pull image "cr.quarryci.io/dockerhub/library/postgres:16": 429 Too Many Requests: '
                  'toomanyrequests: You have reached your pull rate limit.'],
                 started=20, rb="registry-refresh-upstream-credentials",
                 out=outcome(30, "nadia",
                             "The Docker Hub token on the proxy endpoint belonged to an engineer's personal account, "
                             "which was removed from the Docker Hub organization; the proxy fell back to anonymous pulls.",
                             "Public image pulls through the Docker Hub proxy hit the anonymous rate limit again. Ran "
                             "registry-refresh-upstream-credentials with a new token from a service account; pulls "
                             "recovered in 5 minutes.",
                             [ok(run("registry-refresh-upstream-credentials"), "registry-refresh-upstream-credentials")],
                             runbook="registry-refresh-upstream-credentials")))

# 19 NOISY
INCIDENTS.append(report(19, "2025-01-27T15:30", "NOISY", "runner-fleet", "high",
                 "Runner pods pending - one org far over its plan concurrency",
                 "Around 300 runner pods Pending and runners-general is at 240/240. kestrel-games has 450 jobs running "
                 "and 700 queued; their plan allows 60 concurrent jobs. The scheduler's concurrency check seems to let "
                 "them through: they trigger from many repos at once via the API. Everyone else waits 20+ minutes.",
                 ["pods-pending", "queue-backlog"],
                 ["dispatch: org=kestrel-games running=451 limit=60 queued=702 (limit check skipped: cache miss)"],
                 started=25, rb="scheduler-cap-tenant-concurrency",
                 out=outcome(40, "elif.k",
                             "The scheduler skipped the org concurrency check when the plan-limit entry was missing "
                             "from redis, so an API-triggered burst from one org went through unbounded.",
                             "kestrel-games ran 450 jobs against a plan limit of 60 and filled runners-general. Ran "
                             "scheduler-cap-tenant-concurrency (hard cap 60, enforced); their running jobs finished "
                             "normally and the queue for other orgs drained in 18 minutes. Scheduler fix: fail closed "
                             "on a cache miss.",
                             [ok(run("scheduler-cap-tenant-concurrency", "kestrel-games, 60"),
                                 "scheduler-cap-tenant-concurrency")],
                             runbook="scheduler-cap-tenant-concurrency")))

# 20 PGCONN (idle in transaction)
INCIDENTS.append(report(20, "2025-02-03T02:25", "PGCONN", "web-api", "critical",
                 "web-api 5xx: postgres out of connection slots",
                 "web-api returns 500 on about 20% of requests since 01:55. Logs say the remaining connection slots "
                 "are reserved. pg_stat_activity shows 470 of 500 connections in use; 160 of them are billing-meter "
                 "sessions 'idle in transaction', the oldest for 31 minutes. Traffic is normal for the hour.",
                 ["5xx", "connection-exhaustion", "db-timeouts"],
                 ["FATAL: remaining connection slots are reserved for non-replication superuser connections",
                  "pq: canceling statement due to lock timeout (relation usage_events)"],
                 deploy=dep("billing-meter", "2.3.0", 4310), source="oncall", started=30, rb=None, cond="idle-in-tx",
                 out=outcome(85, "marcus",
                             "billing-meter 2.3.0's monthly rollup opened a transaction per org and kept it open "
                             "while calling Stripe; the sessions sat idle in transaction, holding locks on "
                             "usage_events and server connections.",
                             "Raised the web pool with pgbouncer-raise-pool-size (60 -> 90) because that fixed the "
                             "November connection waits. It made things worse: pg-main reached max_connections within "
                             "minutes and lock waits grew. Terminated the idle-in-transaction billing-meter sessions by "
                             "hand and set idle_in_transaction_session_timeout = 60s on the billing_meter role; "
                             "connections fell to 180 and the 5xx stopped at 03:40. Put the web pool back to 60.",
                             [bad(run("pgbouncer-raise-pool-size", "web 60 -> 90"), "pgbouncer-raise-pool-size"),
                              ok("terminate idle-in-transaction billing-meter backends by hand"),
                              ok("set idle_in_transaction_session_timeout=60s for role billing_meter")])))

# 21 DISK
INCIDENTS.append(report(21, "2025-02-06T10:50", "DISK", "runner-fleet", "medium", "evictions on runner nodes again",
                 "jobs getting evicted for ephemeral-storage on a few runner nodes, same as december?",
                 ["pod-evictions"],
                 ["The node was low on resource: ephemeral-storage."],
                 started=15, rb="runners-prune-node-images",
                 out=outcome(30, "bjorn.h",
                             "containerd image and snapshot storage filled up on three runner nodes with 12+ days of "
                             "uptime.",
                             "Three runner nodes evicted build pods for ephemeral storage; /var/lib/containerd was "
                             "95-97% full on each. Ran runners-prune-node-images on the three; evictions stopped.",
                             [ok(run("runners-prune-node-images", "3 nodes"), "runners-prune-node-images")],
                             runbook="runners-prune-node-images")))

# 22 WSLEAK
INCIDENTS.append(report(22, "2025-02-11T17:20", "WSLEAK", "log-stream", "medium", "Live log viewer keeps disconnecting",
                 "Several customers say the live log view reconnects every few seconds and sometimes shows lines "
                 "twice. On our side two log-stream pods were OOMKilled in the last hour and the others are near "
                 "their memory limit.",
                 ["websocket-disconnects", "oom-kill", "memory-growth"],
                 ["log-stream-7c9d4f-x2k8p: container log-stream OOMKilled (limit 4Gi)",
                  "ws: client 10.12.4.7 gone without close frame; subscriber kept (pending=12)"],
                 source="support", started=40, rb="k8s-rollout-restart",
                 out=outcome(30, "nadia",
                             "The websocket subscriber leak (DEVX-2291) was still there; memory grew until pods were "
                             "OOMKilled, dropping every viewer on them.",
                             "log-stream memory had grown for two weeks and pods started getting OOMKilled, which "
                             "dropped the live log connections on them. Ran k8s-rollout-restart on log-stream; memory "
                             "went back to 15% and disconnects stopped. The leak fix was moved up for 2.9.",
                             [ok(run("k8s-rollout-restart", "log-stream"), "k8s-rollout-restart")],
                             runbook="k8s-rollout-restart")))

# 23 CACHE (all shards busy)
INCIDENTS.append(report(23, "2025-02-18T14:40", "CACHE", "build-cache", "high", "Build cache timeouts, all shards hot",
                 "Cache p99 is 2.5 s and climbing. Every cache-shard pod (8 of 8) is at 90-98% CPU; no single shard "
                 "stands out and network per shard is below 3 Gbit/s. Request rate is 1.8x four weeks ago: the two big "
                 "teams migrating from Jenkins went live this week.",
                 ["slow-builds", "cache-timeouts", "latency-spike"],
                 ["remote cache: GET ac/17be4d02...: context deadline exceeded (timeout 2s)"],
                 started=40, rb="cache-add-shards", cond="all-shards",
                 out=outcome(60, "tomasz.w",
                             "Request volume grew with two migrating customers; every shard was CPU-bound.",
                             "Tried cache-offload-hot-keys first, since it was the most recent cache fix: the top keys "
                             "were small and evenly spread, and offloading them changed nothing. Added two shards with "
                             "cache-add-shards (8 -> 10); p99 was back at 200 ms once the rehash settled.",
                             [bad(run("cache-offload-hot-keys", "cache-shard-2"), "cache-offload-hot-keys"),
                              ok(run("cache-add-shards", "8 -> 10"), "cache-add-shards")],
                             runbook="cache-add-shards")))

# 24 HOOKSIG
INCIDENTS.append(report(24, "2025-02-24T09:35", "HOOKSIG", "hook-receiver", "critical",
                 "Pushes not triggering builds since this morning",
                 "Customers say pushes and PRs since about 09:00 UTC don't start pipelines. In one customer's GitHub "
                 "App delivery log the deliveries show a 401 from us. GitLab projects seem fine.",
                 ["webhook-failures", "auth-errors"],
                 ["hook-receiver: github delivery 5c1e90aa: X-Hub-Signature-256 mismatch, rejecting (401)"],
                 source="support", started=35, rb="hooks-reload-webhook-secret",
                 out=outcome(30, "marcus",
                             "Quarterly GitHub App webhook secret rotation; hook-receiver still verified with the old "
                             "secret.",
                             "GitHub deliveries failed signature checks from 08:58 after the scheduled secret rotation. "
                             "Ran hooks-reload-webhook-secret (force the ExternalSecret sync, restart hook-receiver); "
                             "verification recovered at 09:58 and the failed deliveries were redelivered.",
                             [ok(run("hooks-reload-webhook-secret"), "hooks-reload-webhook-secret"),
                              ok("redeliver failed GitHub deliveries")],
                             runbook="hooks-reload-webhook-secret")))

# 25 BILLING
INCIDENTS.append(report(25, "2025-03-01T02:40", "BILLING", "billing-meter", "medium", "Usage metering 2h behind, Stripe 429s",
                 "billing-meter's oldest unacked usage event is 2 h old and growing. The logs are full of 429 from "
                 "Stripe's usage records endpoint. Invoice finalization for February started at 00:00.",
                 ["consumer-lag", "rate-limited"],
                 ["stripe: POST /v1/subscription_items/si_Q2x.../usage_records: 429 rate_limit"],
                 source="oncall", started=45, rb="billing-throttle-stripe-push",
                 out=outcome(40, "jules.a",
                             "Month-start invoice finalization plus usage pushes at full concurrency exceeded Stripe's "
                             "rate limit; the January throttle had only been set by hand and was lost on the next deploy.",
                             "Same as ci-0015. Ran billing-throttle-stripe-push; 429s stopped and the lag was gone by "
                             "04:10. Made the throttle values the chart defaults.",
                             [ok(run("billing-throttle-stripe-push"), "billing-throttle-stripe-push")],
                             runbook="billing-throttle-stripe-push")))

# 26 one-off: runner image breaks docker-in-docker
INCIDENTS.append(report(26, "2025-03-06T10:15", "DIND", "runner-fleet", "critical",
                 "docker build jobs failing: failed to mount overlay on new runner image",
                 "All jobs that use the docker-in-docker service fail since the runner chart 3.8.0 rollout at 09:40, "
                 "which moved runner nodes to the new node image with containerd 2.0. Plain jobs run fine. The "
                 "failing step is always the first docker build.",
                 ["build-failures"],
                 ["failed to register layer: failed to mount overlay: invalid argument",
                  "dockerd: [graphdriver] overlay2: driver not supported (backing filesystem is overlayfs)"],
                 deploy=dep("runner-fleet-chart", "3.8.0", 35), started=25, rb="helm-rollback-release",
                 out=outcome(30, "hiro.t",
                             "Runner chart 3.8.0's node image put the dind data directory on overlayfs, so dockerd's "
                             "overlay2 driver could not mount on top of it.",
                             "Every docker-in-docker job failed on its first docker build after runner chart 3.8.0. "
                             "Rolled the runner-fleet release back to 3.7.4 with helm-rollback-release; new jobs "
                             "built fine again from 10:42. 3.8.1 mounts an emptyDir volume for /var/lib/docker.",
                             [ok(run("helm-rollback-release", "runner-fleet 3.8.0 -> 3.7.4"), "helm-rollback-release")],
                             runbook="helm-rollback-release")))

# 27 LOGBUF
INCIDENTS.append(page(27, "2025-03-11T20:05", "LOGBUF", "runner-fleet", "high", "RunnerLogShipErrors",
              "Runners fail to ship log chunks to log-stream.", "sum(rate(runner_log_ship_errors_total[5m])) > 5",
              388, started=6, rb="logstream-drain-redis-buffer",
              out=outcome(50, "elif.k",
                          "The archiver stalled on a 5.4 GiB log from a job that printed a binary to stdout; the "
                          "redis log buffer filled redis-cache.",
                          "Runner log shipping failed because appends to the redis log buffer were refused (redis at "
                          "maxmemory), the same mechanism as ci-0010. Ran logstream-drain-redis-buffer, which skipped "
                          "the oversized log; redis fell to 7 GB and shipping recovered at 20:48.",
                          [ok(run("logstream-drain-redis-buffer"), "logstream-drain-redis-buffer")],
                          runbook="logstream-drain-redis-buffer")))

# 28 VAULTTOK
INCIDENTS.append(report(28, "2025-03-17T07:20", "VAULTTOK", "web-api", "critical",
                 "Org secrets page: 'secrets backend unavailable'",
                 "The Secrets tab in org settings shows 'secrets backend unavailable' for every org since about 07:00, "
                 "and API calls to /api/v2/orgs/{org}/secrets return 502. web-api logs show secrets-broker answering "
                 "403, and secrets-broker's own logs have repeated 'permission denied' from Vault on token "
                 "renew-self. Builds that need secrets are failing as well.",
                 ["secret-fetch-errors", "5xx"],
                 ["secretsbroker.List: upstream 403: permission denied",
                  "vault: PUT /v1/auth/token/renew-self: 403 permission denied"],
                 started=20, rb="secrets-broker-reauth",
                 out=outcome(25, "chen-li",
                             "secrets-broker's Vault token reached its max TTL again; the re-login fix in 1.12 covered "
                             "the lookup path but not renewal.",
                             "web-api's secrets pages and jobs with secrets failed because secrets-broker's Vault token "
                             "had expired. Ran secrets-broker-reauth; reads recovered at 07:40. Second fix shipped in "
                             "secrets-broker 1.13.",
                             [ok(run("secrets-broker-reauth"), "secrets-broker-reauth")],
                             runbook="secrets-broker-reauth")))

# 29 CAPACITY
INCIDENTS.append(page(29, "2025-03-24T08:05", "CAPACITY", "job-scheduler", "high", "BuildQueueWaitHigh",
              "p95 time from queued to started is above 5 minutes.",
              "histogram_quantile(0.95, sum by (le) (rate(scheduler_queue_wait_seconds_bucket[10m]))) > 300", 742,
              sym=["queue-backlog"], started=10, rb="runners-raise-asg-max",
              out=outcome(35, "tomasz.w",
                          "Monday peak demand above the runners-general max of 240 after customer growth; load was "
                          "spread across orgs.",
                          "Queue wait p95 reached 12 minutes with runners-general at 240/240 and no org over its plan. "
                          "Ran runners-raise-asg-max (240 -> 300); the queue cleared by 08:35.",
                          [ok(run("runners-raise-asg-max", "runners-general 240 -> 300"), "runners-raise-asg-max")],
                          runbook="runners-raise-asg-max")))

# 30 one-off: DST gap
INCIDENTS.append(report(30, "2025-03-31T08:10", "DST", "job-scheduler", "low",
                 "Nightly scheduled pipelines didn't run Sunday for EU customers",
                 "Four customers, all with schedules in Europe/Berlin or Europe/Paris, say their nightly schedules at "
                 "02:00-02:59 local time did not run on Sunday 30 March. Other schedules that night ran. There is "
                 "nothing in the failed jobs list: no runs at all for those slots.",
                 ["missed-schedules"],
                 ['scheduler/cron: next fire for schedule 44812 ("30 2 * * *" Europe/Berlin) computed as '
                  '2025-03-31T00:30:00Z'],
                 source="support", started=90, rb=None,
                 out=outcome(180, "tomasz.w",
                             "The cron library skipped local times that do not exist at the DST change (02:00-03:00 on "
                             "30 March) instead of firing them at 03:00.",
                             "1,312 schedules with a fire time inside the skipped hour never ran on 30 March. "
                             "Triggered one run by hand for the customers who asked, and shipped scheduler 1.31.2, "
                             "which runs a non-existent local time at the next valid minute.",
                             [part("trigger the missed schedule runs by hand for affected orgs"),
                              ok("ship job-scheduler 1.31.2 with DST gap handling")])))

# 31 PGCONN (idle in transaction)
INCIDENTS.append(report(31, "2025-04-02T02:35", "PGCONN", "artifact-registry", "high",
                 "Registry pushes failing with 'too many clients'",
                 "Image pushes to cr.quarryci.io fail with 500 since 02:10; registry logs show 'sorry, too many "
                 "clients already' from postgres. pg_stat_activity: 95 sessions from registry-gc 'idle in "
                 "transaction', oldest 22 min, and many waiting lock requests on the artifact tables. The GC job "
                 "started at 02:00 as usual.",
                 ["5xx", "connection-exhaustion"],
                 ["pq: sorry, too many clients already",
                  "registry-gc: mark phase: holding tx on repository 'acme-corp/monorepo' (1.8M tags)"],
                 source="oncall", started=25, rb="pg-terminate-idle-in-tx", cond="idle-in-tx",
                 out=outcome(30, "nadia",
                             "registry-gc kept one transaction per repository open during its mark phase; a repository "
                             "with 1.8M tags took over 20 minutes and GC sessions piled up idle in transaction.",
                             "Registry pushes failed because pg-main was out of connections, most held by registry-gc "
                             "sessions idle in transaction. Ran pg-terminate-idle-in-tx (older than 5 minutes) and "
                             "paused registry-gc; pushes worked again at 02:50. GC now commits per batch of 10k tags.",
                             [ok(run("pg-terminate-idle-in-tx", "older than 5m"), "pg-terminate-idle-in-tx"),
                              ok("pause registry-gc until the batch-commit fix ships")],
                             runbook="pg-terminate-idle-in-tx")))

# 32 NOISY
INCIDENTS.append(page(32, "2025-04-07T13:20", "NOISY", "job-scheduler", "high", "TenantConcurrencyOverLimit",
              "Org brightwater-io is running 6.9x its plan's concurrent job limit.",
              "max by (org) (scheduler_org_running_jobs / scheduler_org_plan_limit) > 1.5", 6.9,
              sym=["queue-backlog"], started=8, rb="scheduler-cap-tenant-concurrency",
              out=outcome(25, "hiro.t",
                          "During a redis failover the plan-limit cache was empty and brightwater-io's API-triggered "
                          "fan-out was dispatched without a limit (the fail-closed fix covered only the webhook path).",
                          "brightwater-io ran 410 jobs against a limit of 60 and the rest of the fleet queued behind "
                          "them. Ran scheduler-cap-tenant-concurrency (60, enforced); the queue drained in 15 minutes.",
                          [ok(run("scheduler-cap-tenant-concurrency", "brightwater-io, 60"),
                              "scheduler-cap-tenant-concurrency")],
                          runbook="scheduler-cap-tenant-concurrency")))

# 33 REL
INCIDENTS.append(report(33, "2025-04-16T11:50", "REL", "web-api", "high",
                 "Job detail page slow and pg-main CPU at 90% after web-api 2025.16.1",
                 "Since 2025.16.1 went out at 11:25, GET /api/v2/jobs/{id} p95 is 6.2 s (was 250 ms) and the "
                 "dashboard job page times out for large jobs. pg-main CPU went from 40% to 90%. The top query in "
                 "pg_stat_statements is a new SELECT ... FROM job_steps WHERE job_id = $1 ORDER BY started_at at "
                 "1.9 s mean, doing a sequential scan. Connection counts are normal and nothing is idle in "
                 "transaction: it's CPU, not connection slots.",
                 ["latency-spike", "db-load", "5xx"],
                 ["Seq Scan on job_steps (rows=48112903) actual time=1930 ms",
                  "upstream request timeout: GET /api/v2/jobs/91822311 504"],
                 deploy=dep("web-api", "2025.16.1", 25), started=20, rb="helm-rollback-release",
                 out=outcome(30, "elif.k",
                             "2025.16.1 ordered job steps by started_at with a query no index covered, so every job "
                             "page scanned job_steps.",
                             "Job pages slowed down and pg-main CPU rose to 90% right after web-api 2025.16.1. Rolled "
                             "back to 2025.16.0 with helm-rollback-release; pg-main CPU was at 40% three minutes later. "
                             "2025.16.2 adds an index on (job_id, started_at) first.",
                             [ok(run("helm-rollback-release", "web-api 2025.16.1 -> 2025.16.0"), "helm-rollback-release")],
                             runbook="helm-rollback-release")))

# 34 DISK
INCIDENTS.append(page(34, "2025-04-22T19:30", "DISK", "runner-fleet", "medium", "RunnerNodeDiskPressure", D_DISK,
              EXPR_DISK, 2, sym=["disk-pressure"], started=5, rb="runners-prune-node-images",
              out=outcome(35, "hiro.t",
                          "Two long-lived nodes of the new Karpenter runner pool (consolidation off for runners) "
                          "filled /var/lib/containerd with old images and dind snapshots.",
                          "Two runner nodes reported DiskPressure; both had been up for 8 days. Ran "
                          "runners-prune-node-images on both; DiskPressure cleared. Asked for an expireAfter on the "
                          "runner NodePools.",
                          [ok(run("runners-prune-node-images", "2 nodes"), "runners-prune-node-images")],
                          runbook="runners-prune-node-images")))

# 35 CAPACITY (after Karpenter)
INCIDENTS.append(report(35, "2025-04-28T08:15", "CAPACITY", "runner-fleet", "high",
                 "Runner pods pending, Karpenter not adding nodes",
                 "About 260 runner pods Pending since 07:50 and the queue wait p95 is 11 min. Karpenter isn't "
                 "launching anything for runners-general; its log says the nodepool limits are exceeded. Load looks "
                 "normal for a Monday morning, spread over lots of orgs. First Monday peak since runners moved to "
                 "Karpenter.",
                 ["pods-pending", "queue-backlog"],
                 ['karpenter: could not schedule pod, all available instance types exceed limits for nodepool: '
                  '"runners-general"',
                  "nodepool runners-general: limits cpu=2400, in use cpu=2396"],
                 started=25, rb="runners-raise-nodepool-limit",
                 out=outcome(40, "marcus",
                             "The runners-general NodePool cpu limit (2400) had been copied from the old node group's "
                             "max and was below the Monday peak.",
                             "Ran runners-raise-asg-max out of habit: no ASG backs the runner nodes since the Karpenter "
                             "move, so nothing changed. Raised the NodePool cpu limit from 2400 to 3200 with "
                             "runners-raise-nodepool-limit; Karpenter launched 21 nodes and the pending pods cleared in "
                             "8 minutes.",
                             [bad(run("runners-raise-asg-max"), "runners-raise-asg-max"),
                              ok(run("runners-raise-nodepool-limit", "runners-general cpu 2400 -> 3200"),
                                 "runners-raise-nodepool-limit")],
                             runbook="runners-raise-nodepool-limit")))

# 36 BILLING
INCIDENTS.append(page(36, "2025-05-01T00:55", "BILLING", "billing-meter", "medium", "BillingMeterLag", D_BILL,
              EXPR_BILL, 2140, started=10, rb="billing-throttle-stripe-push",
              out=outcome(30, "jules.a",
                          "Month-start Stripe 429s; the throttle was lost when billing-meter moved to a new chart "
                          "version that did not carry the values over.",
                          "Usage metering fell behind at month start with Stripe answering 429. Ran "
                          "billing-throttle-stripe-push; the lag was gone by 02:10.",
                          [ok(run("billing-throttle-stripe-push"), "billing-throttle-stripe-push")],
                          runbook="billing-throttle-stripe-push")))

# 37 CACHE (one hot shard)
INCIDENTS.append(report(37, "2025-05-06T15:45", "CACHE", "build-cache", "high", "Cache p99 3 s, cache-shard-1 NIC saturated",
                 "Build cache p99 GET 3.1 s since 15:10. cache-shard-1 transmits 9.8 Gbit/s and is at 100% CPU; the "
                 "other nine shards are below 1 Gbit/s and 25% CPU. Overall request rate is flat. One key, a 3.4 GB "
                 "toolchain tarball of org pinecrest, was fetched 41k times in the last 10 minutes.",
                 ["slow-builds", "cache-timeouts", "latency-spike"],
                 ["cache-shard-1: tx 9.8 Gbit/s, top key cas/e03b55c1... 41207 GETs/10m",
                  "remote cache: GET cas/e03b55c1... (3.4 GiB): context deadline exceeded"],
                 started=35, rb="cache-offload-hot-keys", cond="hot-shard",
                 out=outcome(25, "chen-li",
                             "pinecrest's monorepo jobs all fetched one 3.4 GB toolchain tarball, which lives on "
                             "cache-shard-1.",
                             "One shard saturated its NIC on a single hot key while the rest idled. Ran "
                             "cache-offload-hot-keys on cache-shard-1 (top 20 keys over 256 MiB to S3); the shard's "
                             "traffic fell to 1.5 Gbit/s and p99 to 140 ms within five minutes.",
                             [ok(run("cache-offload-hot-keys", "cache-shard-1"), "cache-offload-hot-keys")],
                             runbook="cache-offload-hot-keys")))

# 38 PULLRATE
INCIDENTS.append(page(38, "2025-05-09T12:30", "PULLRATE", "artifact-registry", "high", "RegistryUpstreamErrors",
              "The dockerhub-proxy endpoint is getting errors from its upstream registry.",
              'sum(rate(registry_proxy_upstream_responses_total{endpoint="dockerhub-proxy",code="429"}[5m])) > 1', 17.3,
              sym=["rate-limited"], started=10, rb="registry-refresh-upstream-credentials",
              out=outcome(30, "nadia",
                          "The Docker Hub service-account token on the proxy endpoint expired after its 90-day "
                          "lifetime.",
                          "The Docker Hub proxy started getting 429s from upstream at 12:20 and runner pulls of public "
                          "images began to fail. Ran registry-refresh-upstream-credentials with a new token; errors "
                          "stopped. Added a token-expiry alert.",
                          [ok(run("registry-refresh-upstream-credentials"), "registry-refresh-upstream-credentials")],
                          runbook="registry-refresh-upstream-credentials")))

# 39 one-off: S3 prefix throttling on the registry's own blobs
INCIDENTS.append(report(39, "2025-05-14T16:20", "S3SLOW", "runner-fleet", "high",
                 "ImagePullBackOff on images from our own registry (503 SlowDown)",
                 "About 15% of jobs are stuck in ImagePullBackOff, but these are images from customers' own projects "
                 "on cr.quarryci.io, not Docker Hub. The kubelet gets 503 on blob GETs, and registry logs show S3 "
                 "answering SlowDown for the docker/registry/v2/blobs/sha256/4f/ prefix. One customer pushed about "
                 "30k tags in the last hour from a loop, and registry-gc is running.",
                 ["image-pull-backoff", "build-failures"],
                 ['Failed to pull image "cr.quarryci.io/lumen/api:pr-18812": 503 Service Unavailable',
                  "s3: GetObject docker/registry/v2/blobs/sha256/4f/4f9a...: SlowDown: Please reduce your request rate."],
                 started=30, rb=None,
                 out=outcome(90, "tomasz.w",
                             "S3 throttled one blob prefix after a customer's tag loop pushed about 30k manifests while "
                             "registry-gc walked the same prefix.",
                             "Refreshing the proxy's Docker Hub credentials (registry-refresh-upstream-credentials) did "
                             "nothing: the errors came from S3, not from Docker Hub. Paused registry-gc and rate-limited "
                             "the customer's push token, then contacted them. SlowDown errors stopped within 20 minutes "
                             "as S3 scaled the prefix. Follow-up: spread blob keys over more prefixes.",
                             [bad(run("registry-refresh-upstream-credentials"), "registry-refresh-upstream-credentials"),
                              ok("pause registry-gc and rate-limit the customer's push token by hand")])))

# 40 VAULTTOK
INCIDENTS.append(page(40, "2025-05-20T05:10", "VAULTTOK", "secrets-broker", "critical", "SecretsBrokerVaultErrors", D_VAULT,
              EXPR_VAULT, 0.96, sym=["secret-fetch-errors"], started=6, rb="secrets-broker-reauth",
              out=outcome(20, "hiro.t",
                          "secrets-broker's Vault token hit its max TTL; 1.13's re-login did not trigger because Vault "
                          "answered renew with a warning instead of an error when the TTL was capped.",
                          "All Vault reads of secrets-broker failed with 403 from 05:02. Ran secrets-broker-reauth; "
                          "recovered at 05:28.",
                          [ok(run("secrets-broker-reauth"), "secrets-broker-reauth")],
                          runbook="secrets-broker-reauth")))

# 41 HOOKSIG
INCIDENTS.append(page(41, "2025-05-27T09:05", "HOOKSIG", "hook-receiver", "critical", "WebhookSignatureRejects", D_SIG,
              EXPR_SIG, 0.94, started=5, rb="hooks-reload-webhook-secret",
              out=outcome(20, "marcus",
                          "May rotation of the GitHub App webhook secret; hook-receiver kept the old secret.",
                          "GitHub deliveries failed verification after the quarterly rotation at 09:00. Ran "
                          "hooks-reload-webhook-secret and redelivered; recovered at 09:22.",
                          [ok(run("hooks-reload-webhook-secret"), "hooks-reload-webhook-secret"),
                           ok("redeliver failed GitHub deliveries")],
                          runbook="hooks-reload-webhook-secret")))

# 42 VAULTRAFT
INCIDENTS.append(report(42, "2025-06-02T23:40", "VAULTRAFT", "secrets-broker", "critical",
                 "secrets-broker: Vault returns 500 'active cluster node not found'",
                 "Secret reads fail for all orgs since 23:15, right after the vault node pool upgrade moved two of "
                 "the three vault pods. The errors are not 403 this time: Vault answers 500 with 'local node not "
                 "active but active cluster node not found', and vault status on vault-0 shows HA mode standby with "
                 "no leader. vault-1 came back with a new IP.",
                 ["secret-fetch-errors", "build-failures"],
                 ["vault: GET /v1/ci/data/orgs/9911/env: 500 local node not active but active cluster node not found",
                  "raft: failed to contact quorum of nodes, operating as follower"],
                 source="oncall", started=25, rb=None,
                 out=outcome(75, "elif.k",
                             "After the upgrade vault-1 rejoined with a new node ID while its old Raft peer entry "
                             "stayed; with four voters configured and two reachable, Raft had no quorum and no leader.",
                             "secrets-broker-reauth did not help: the broker's token was fine and there was no active "
                             "Vault node to talk to. Removed vault-1's stale peer with vault operator raft remove-peer "
                             "and restarted vault-1 so it joined cleanly; a leader was elected at 00:48 and reads "
                             "recovered.",
                             [bad(run("secrets-broker-reauth"), "secrets-broker-reauth"),
                              ok("remove the stale Raft peer and restart vault-1 by hand")])))

# 43 WSLEAK
INCIDENTS.append(report(43, "2025-06-05T06:40", "WSLEAK", "log-stream", "medium", "log-stream OOMing overnight",
                 "log-stream pods OOMKilled 14 times overnight, live logs flaky again. memory climbs then dies.",
                 ["oom-kill", "websocket-disconnects"],
                 ["OOMKilled: log-stream-5b7c8d-qq2lm (limit 4Gi)"],
                 started=30, rb="k8s-rollout-restart",
                 out=outcome(40, "nadia",
                             "The websocket leak came back in 2.12: the new edge idle timeout cuts connections without "
                             "a close frame, and the 2.12 refactor lost the cleanup for that case.",
                             "log-stream memory grew quickly after 2.12 and pods were OOMKilled through the night. Ran "
                             "k8s-rollout-restart to get everyone on fresh pods, and 2.12.1 restored the cleanup the "
                             "same afternoon.",
                             [ok(run("k8s-rollout-restart", "log-stream"), "k8s-rollout-restart")],
                             runbook="k8s-rollout-restart")))

# 44 WSLEAK re-page of 43, never closed with an outcome
INCIDENTS.append(page(44, "2025-06-05T07:05", "WSLEAK", "log-stream", "medium", "KubePodCrashLooping",
              "Pod logs/log-stream-5b7c8d-r8tzx (log-stream) is in waiting state (reason: CrashLoopBackOff).",
              'max_over_time(kube_pod_container_status_waiting_reason{namespace="logs",reason="CrashLoopBackOff"}[5m]) >= 1',
              1, started=15, rb="k8s-rollout-restart", out=None))

# 45 PGCONN (pool too small)
INCIDENTS.append(report(45, "2025-06-10T13:30", "PGCONN", "job-scheduler", "high",
                 "scheduler pool saturated at pgbouncer, dispatch p95 8 s",
                 "Dispatch latency p95 8 s since about 13:00, queue growing. pgbouncer: scheduler pool cl_waiting 240, "
                 "sv_active 70/70. Queries are short (p99 40 ms); pg_stat_activity has no idle-in-transaction "
                 "sessions and no lock waits. Since Karpenter, nodes come up faster and we run ~35% more runners at "
                 "peak, so heartbeats are up.",
                 ["connection-exhaustion", "queue-backlog"],
                 ["pgx: acquire conn: timeout after 5s (pool scheduler)",
                  "pgbouncer: pool quarry/scheduler cl_waiting=240 sv_active=70 maxwait=9"],
                 started=30, rb="pgbouncer-raise-pool-size", cond="pool-small",
                 out=outcome(45, "tomasz.w",
                             "The scheduler pool was too small for the larger runner fleet's heartbeat and dispatch "
                             "traffic.",
                             "Ran pg-terminate-idle-in-tx first, since the last connection incidents were fixed that "
                             "way; there were no idle sessions to end and nothing changed. Raised the scheduler pool "
                             "from 70 to 110 with pgbouncer-raise-pool-size; cl_waiting was gone within a minute and "
                             "dispatch p95 back under 1 s.",
                             [bad(run("pg-terminate-idle-in-tx"), "pg-terminate-idle-in-tx"),
                              ok(run("pgbouncer-raise-pool-size", "scheduler 70 -> 110"), "pgbouncer-raise-pool-size")],
                             runbook="pgbouncer-raise-pool-size")))

# 46 REL
INCIDENTS.append(report(46, "2025-06-17T14:35", "REL", "web-api", "high",
                 "Dashboard showing 'Something went wrong' for lots of users",
                 "Since about 14:20 UTC many customers see 'Something went wrong' on the pipelines and runs pages; a "
                 "refresh sometimes helps. It started soon after today's web-api release. Status page not updated yet.",
                 ["5xx", "error-rate-spike"],
                 ['GET /api/v2/orgs/oakline/runs?status=running 500 (graphql: Int cannot represent non-integer value: '
                  '1843.5 at "runs.durationMs")'],
                 deploy=dep("web-api", "2025.25.0", 30), source="support", started=15, rb="helm-rollback-release",
                 out=outcome(25, "chen-li",
                             "2025.25.0 returned run durations as floats into an Int field; any list containing a "
                             "running job failed.",
                             "Runs and pipelines pages failed whenever they listed a running job, starting with web-api "
                             "2025.25.0. Rolled back to 2025.24.3 with helm-rollback-release; errors stopped at 14:58.",
                             [ok(run("helm-rollback-release", "web-api 2025.25.0 -> 2025.24.3"), "helm-rollback-release")],
                             runbook="helm-rollback-release")))

# 47 CAPACITY
INCIDENTS.append(page(47, "2025-06-24T07:55", "CAPACITY", "runner-fleet", "high", "RunnerPodsPending", D_PENDING,
              EXPR_PENDING, 304, started=12, rb="runners-raise-nodepool-limit",
              out=outcome(20, "hiro.t",
                          "Monday peak above the runners-general NodePool cpu limit of 3200; load broad, no org over "
                          "plan.",
                          "Karpenter stopped launching runner nodes at the NodePool limit during the Monday peak. Ran "
                          "runners-raise-nodepool-limit (3200 -> 4000); pending pods cleared in 7 minutes.",
                          [ok(run("runners-raise-nodepool-limit", "cpu 3200 -> 4000"), "runners-raise-nodepool-limit")],
                          runbook="runners-raise-nodepool-limit")))

# 48 BILLING
INCIDENTS.append(report(48, "2025-07-01T01:30", "BILLING", "billing-meter", "medium", "Metering lag again at month start",
                 "Oldest unmetered usage event is 95 min old. 429s from Stripe again while June invoices finalize. The "
                 "deployment shows STRIPE_PUSH_CONCURRENCY=16, looks like the default came back with the move to the "
                 "new billing namespace.",
                 ["consumer-lag", "rate-limited"],
                 ["stripe: POST /v1/subscription_items/si_R8k.../usage_records: 429 rate_limit"],
                 deploy=dep("billing-meter", "2.6.0", 8650), started=35, rb="billing-throttle-stripe-push",
                 out=outcome(25, "jules.a",
                             "The namespace move reset the Stripe push throttle to the old default of 16.",
                             "Same month-start Stripe rate limiting as before. Ran billing-throttle-stripe-push; the "
                             "backlog cleared by 02:40.",
                             [ok(run("billing-throttle-stripe-push"), "billing-throttle-stripe-push")],
                             runbook="billing-throttle-stripe-push")))

# 49 LOGBUF (last one on redis)
INCIDENTS.append(report(49, "2025-07-08T10:20", "LOGBUF", "web-api", "high",
                 "Dashboard: live logs empty for new runs; log-stream appends failing",
                 "Runs started after about 09:55 show no log lines in the dashboard; older ones are fine. web-api's "
                 "logs endpoint returns empty chunks, and log-stream returns errors on append with redis 'OOM command "
                 "not allowed'. redis-cache is at maxmemory with 22 GB in log keys. Archiver throughput is flat since "
                 "09:30.",
                 ["log-gaps"],
                 ["XADD joblog:10488123 failed: OOM command not allowed when used memory > 'maxmemory'"],
                 started=25, rb="logstream-drain-redis-buffer",
                 out=outcome(35, "chen-li",
                             "The archiver got stuck on an oversized log again and the redis log buffer filled.",
                             "Live logs stopped for new runs because redis-cache was full of unarchived log streams. "
                             "Ran logstream-drain-redis-buffer; appends recovered at 10:52. The JetStream move planned "
                             "for July takes the log buffer off redis-cache.",
                             [ok(run("logstream-drain-redis-buffer"), "logstream-drain-redis-buffer")],
                             runbook="logstream-drain-redis-buffer")))

# 50 DISK
INCIDENTS.append(report(50, "2025-07-23T12:10", "DISK", "runner-fleet", "medium",
                 "Build pods evicted on two runner nodes (ephemeral-storage)",
                 "Jobs on ip-10-42-7-19 and ip-10-42-9-133 got evicted in the last half hour. Both nodes have "
                 "/var/lib/containerd at 94-97%; they've been up 16 days because a do-not-disrupt annotation kept "
                 "Karpenter from replacing them.",
                 ["pod-evictions", "disk-pressure"],
                 ["The node was low on resource: ephemeral-storage. Container build was using 38Gi, request is 20Gi."],
                 started=30, rb="runners-prune-node-images",
                 out=outcome(30, "marcus",
                             "Images and dind snapshots accumulated on two runner nodes kept alive for 16 days by a "
                             "do-not-disrupt annotation.",
                             "Ran runners-prune-node-images on both nodes; evictions stopped. Removed the stray "
                             "do-not-disrupt annotation so Karpenter expires them again.",
                             [ok(run("runners-prune-node-images", "2 nodes"), "runners-prune-node-images")],
                             runbook="runners-prune-node-images")))

# 51 NOISY (after Karpenter)
INCIDENTS.append(report(51, "2025-07-29T15:05", "NOISY", "runner-fleet", "high",
                 "Runner pods pending, nodepool limit hit - mostly one org",
                 "About 500 runner pods Pending and Karpenter reports the runners-general nodepool limits exceeded, "
                 "like in April. But this isn't broad load: orchard-labs has 610 running jobs (plan limit 50), from a "
                 "scheduled workflow that starts a 300-job matrix every 10 minutes. Other orgs wait 25+ minutes.",
                 ["pods-pending", "queue-backlog", "cost-spike"],
                 ['karpenter: all available instance types exceed limits for nodepool: "runners-general"',
                  "dispatch: org=orchard-labs running=611 limit=50 (enforce=false)"],
                 started=20, rb="scheduler-cap-tenant-concurrency",
                 out=outcome(50, "elif.k",
                             "orchard-labs' plan had enforce=false after a sales-led trial extension; a scheduled "
                             "300-job matrix every 10 minutes took the fleet.",
                             "The on-call first raised the NodePool cpu limit (runners-raise-nodepool-limit, 4000 -> "
                             "4800): 19 new nodes filled with orchard-labs jobs within minutes and the wait for other "
                             "orgs did not change. Capped orchard-labs at 50 with scheduler-cap-tenant-concurrency and "
                             "put the NodePool limit back; the queue for others drained in 12 minutes.",
                             [bad(run("runners-raise-nodepool-limit", "cpu 4000 -> 4800"), "runners-raise-nodepool-limit"),
                              ok(run("scheduler-cap-tenant-concurrency", "orchard-labs, 50"),
                                 "scheduler-cap-tenant-concurrency"),
                              ok("put the runners-general cpu limit back to 4000")],
                             runbook="scheduler-cap-tenant-concurrency")))

# 52 LOGBUF (after JetStream)
INCIDENTS.append(page(52, "2025-08-04T18:40", "LOGBUF", "log-stream", "high", "LogStreamAppendErrors",
              "log-stream fails to append build log chunks.", "sum(rate(logstream_append_errors_total[5m])) > 5", 212,
              sym=["log-gaps"], started=8, rb="logstream-drain-jetstream",
              out=outcome(45, "nadia",
                          "The archiver consumer stalled on a 6 GiB log and JOBLOGS reached max_bytes, so JetStream "
                          "refused new chunks.",
                          "Ran logstream-drain-redis-buffer from habit: there is nothing to drain in redis since the "
                          "July move to JetStream. JOBLOGS was at its 500 GiB max_bytes with the archiver consumer "
                          "stuck on one 6 GiB log. Ran logstream-drain-jetstream; appends recovered at 19:20.",
                          [bad(run("logstream-drain-redis-buffer"), "logstream-drain-redis-buffer"),
                           ok(run("logstream-drain-jetstream"), "logstream-drain-jetstream")],
                          runbook="logstream-drain-jetstream")))

# 53 CACHE (all shards busy)
INCIDENTS.append(report(53, "2025-08-06T14:15", "CACHE", "build-cache", "high", "Build cache latency up across every shard",
                 "p99 GET 2.2 s. All 10 shards are between 88% and 97% CPU, network per shard 2-3 Gbit/s, and no hot "
                 "key stands out (the top key is 0.3% of GETs). Request rate is up 70% since the free tier for "
                 "open-source projects opened on Monday.",
                 ["slow-builds", "cache-timeouts"],
                 ["remote cache: GET ac/03d7aa19...: context deadline exceeded (timeout 2s)"],
                 started=30, rb="cache-add-shards", cond="all-shards",
                 out=outcome(40, "hiro.t",
                             "Open-source free tier launch raised cache request volume by 70%; every shard CPU-bound.",
                             "All shards were busy with no hot key. Ran cache-add-shards (10 -> 13); p99 back to "
                             "180 ms after the rehash.",
                             [ok(run("cache-add-shards", "10 -> 13"), "cache-add-shards")],
                             runbook="cache-add-shards")))

# 54 VAULTTOK (paged from hook-receiver)
INCIDENTS.append(report(54, "2025-08-12T06:30", "VAULTTOK", "hook-receiver", "high",
                 "GitLab webhooks failing, hook-receiver can't read project tokens",
                 "GitLab deliveries are answered 503 since about 06:05; GitHub is fine. hook-receiver fails to fetch "
                 "per-project webhook tokens from secrets-broker, which answers 403. secrets-broker's logs show Vault "
                 "'permission denied' on renew-self.",
                 ["webhook-failures", "secret-fetch-errors"],
                 ["hook-receiver: gitlab token lookup for project 48812: secrets-broker 403",
                  "vault: PUT /v1/auth/token/renew-self: 403 permission denied"],
                 started=25, rb="secrets-broker-reauth",
                 out=outcome(35, "marcus",
                             "secrets-broker's Vault token hit its max TTL; secrets-broker 1.14 regressed the re-login "
                             "on renew failure.",
                             "Ran hooks-reload-webhook-secret first because the symptom was webhooks; no change, the "
                             "GitHub secret was never the problem. secrets-broker-reauth fixed it at 07:02; GitLab "
                             "retried its deliveries.",
                             [bad(run("hooks-reload-webhook-secret"), "hooks-reload-webhook-secret"),
                              ok(run("secrets-broker-reauth"), "secrets-broker-reauth")],
                             runbook="secrets-broker-reauth")))

# 55 PULLRATE
INCIDENTS.append(report(55, "2025-08-19T09:40", "PULLRATE", "runner-fleet", "high", "toomanyrequests pulling mysql:8",
                 "service containers failing to pull mysql:8 and redis:7, toomanyrequests. thought the mirror fixed "
                 "docker hub?",
                 ["image-pull-backoff", "rate-limited"],
                 ["toomanyrequests: You have reached your pull rate limit. You may increase the limit by "
                  "authenticating and upgrading"],
                 started=15, rb="registry-refresh-upstream-credentials",
                 out=outcome(25, "bjorn.h",
                             "The Docker Hub token on the proxy expired; the expiry alert went to a channel nobody "
                             "watches.",
                             "Ran registry-refresh-upstream-credentials; pulls recovered.",
                             [ok(run("registry-refresh-upstream-credentials"), "registry-refresh-upstream-credentials")],
                             runbook="registry-refresh-upstream-credentials")))

# 56 HOOKSIG (paged from the edge)
INCIDENTS.append(page(56, "2025-08-25T09:10", "HOOKSIG", "edge-gateway", "high", "EdgeUpstream4xxRatio",
              "More than 10% of requests routed to hook-receiver get a 4xx from the upstream.",
              'sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name="hook-receiver",envoy_response_code_class="4"}[5m]))'
              ' / sum(rate(envoy_cluster_upstream_rq_total{envoy_cluster_name="hook-receiver"}[5m])) > 0.1', 0.71,
              sym=["webhook-failures"], started=8, rb="hooks-reload-webhook-secret",
              out=outcome(30, "marcus",
                          "August rotation of the GitHub App webhook secret; hook-receiver kept the old one.",
                          "The edge saw hook-receiver answer 401 to most GitHub deliveries after the 09:00 rotation. "
                          "Ran hooks-reload-webhook-secret and redelivered.",
                          [ok(run("hooks-reload-webhook-secret"), "hooks-reload-webhook-secret"),
                           ok("redeliver failed GitHub deliveries")],
                          runbook="hooks-reload-webhook-secret")))

# 57 REL
INCIDENTS.append(report(57, "2025-08-26T16:40", "REL", "web-api", "high",
                 "web-api memory climbing and pods OOMKilled since 2025.35.0",
                 "After 2025.35.0 rolled out at 15:30, web-api pods' memory grows about 40 MiB a minute and they get "
                 "OOMKilled every ~45 min (limit 3 GiB). Each kill drops in-flight requests and we see bursts of 502 "
                 "at the gateway. Goroutine count rises in step with memory; 2025.34.2 didn't do this. pg-main and "
                 "connection counts look normal.",
                 ["memory-growth", "oom-kill", "5xx"],
                 ["web-api-6f9b7c-hx9qk: container web-api OOMKilled (limit 3Gi)",
                  "runtime: goroutines=184311 (2025.34.2 baseline ~2k)"],
                 deploy=dep("web-api", "2025.35.0", 70), started=30, rb="helm-rollback-release",
                 out=outcome(30, "elif.k",
                             "2025.35.0 started a feature-flag watcher goroutine per request and never stopped it.",
                             "A rolling restart (k8s-rollout-restart) bought about 40 minutes before memory climbed "
                             "again. Rolled back to 2025.34.2 with helm-rollback-release; memory stayed flat.",
                             [part(run("k8s-rollout-restart", "web-api"), "k8s-rollout-restart"),
                              ok(run("helm-rollback-release", "web-api 2025.35.0 -> 2025.34.2"), "helm-rollback-release")],
                             runbook="helm-rollback-release")))

# 58 PGCONN (idle in transaction)
INCIDENTS.append(report(58, "2025-09-02T02:15", "PGCONN", "billing-meter", "high",
                 "billing-meter can't get db connections; lots of idle in transaction",
                 "billing-meter workers time out acquiring connections since 01:50 and the nightly rollup is stalled. "
                 "pg-main is at 480/500 connections. 70 sessions are 'idle in transaction' from web-api "
                 "(application_name web-api-export), the oldest 38 min, holding row locks on org_usage. Pool sizes are "
                 "unchanged since June.",
                 ["connection-exhaustion", "db-timeouts", "consumer-lag"],
                 ["pgx: acquire conn: timeout after 5s (pool billing)",
                  "idle in transaction (00:38:12) application_name=web-api-export: SELECT ... FROM org_usage ... FOR UPDATE"],
                 source="oncall", started=25, rb="pg-terminate-idle-in-tx", cond="idle-in-tx",
                 out=outcome(30, "jules.a",
                             "web-api's new org usage export opened a transaction with SELECT ... FOR UPDATE and "
                             "streamed a large CSV to the client before committing.",
                             "pg-main ran out of connections to sessions idle in transaction from web-api's export "
                             "endpoint. Ran pg-terminate-idle-in-tx; billing-meter recovered at 02:35. The export now "
                             "reads without locks in a read-only transaction.",
                             [ok(run("pg-terminate-idle-in-tx", "older than 5m"), "pg-terminate-idle-in-tx")],
                             runbook="pg-terminate-idle-in-tx")))

# 59 LOGBUF (after JetStream)
INCIDENTS.append(report(59, "2025-09-09T13:05", "LOGBUF", "runner-fleet", "high",
                 "Jobs stuck at 'Uploading logs' after finishing",
                 "Jobs finish their steps and then sit in 'Uploading logs' for 10+ minutes before timing out; about "
                 "20% of jobs since 12:40. Runner logs show publishes to JetStream being refused for maximum bytes. "
                 "The JOBLOGS stream is at 500 GiB of 500 GiB.",
                 ["stuck-jobs", "log-gaps"],
                 ["runner: publish joblogs.9933812.chunk: nats: maximum bytes exceeded",
                  "archiver: consumer joblogs-archiver ack pending 1000/1000, oldest 47m"],
                 started=25, rb="logstream-drain-jetstream",
                 out=outcome(30, "hiro.t",
                             "The archiver consumer stalled on oversized logs and JOBLOGS filled to max_bytes.",
                             "Ran logstream-drain-jetstream; the stream dropped to 140 GiB and stuck jobs completed "
                             "by 13:40.",
                             [ok(run("logstream-drain-jetstream"), "logstream-drain-jetstream")],
                             runbook="logstream-drain-jetstream")))

# 60 CAPACITY
INCIDENTS.append(report(60, "2025-09-16T08:25", "CAPACITY", "job-scheduler", "high", "Queue wait p95 22 min - nodepool limit again",
                 "Queue wait p95 is 22 minutes, about 400 runner pods pending. Karpenter won't launch for "
                 "runners-general: nodepool limits exceeded. Checked tenants: the top org has 4% of running jobs, "
                 "nobody is over plan. Back-to-school Monday with EU and US overlapping.",
                 ["queue-backlog", "pods-pending"],
                 ['karpenter: all available instance types exceed limits for nodepool: "runners-general"',
                  "nodepool runners-general: limits cpu=4000, in use cpu=3998"],
                 started=30, rb="runners-raise-nodepool-limit",
                 out=outcome(25, "tomasz.w",
                             "Broad seasonal demand above the runners-general cpu limit of 4000.",
                             "Ran runners-raise-nodepool-limit (4000 -> 5000); the queue wait was under 2 minutes by "
                             "08:50.",
                             [ok(run("runners-raise-nodepool-limit", "cpu 4000 -> 5000"), "runners-raise-nodepool-limit")],
                             runbook="runners-raise-nodepool-limit")))

# 61 CACHE (one hot shard)
INCIDENTS.append(report(61, "2025-09-23T15:30", "CACHE", "build-cache", "medium", "cache-shard-4 pegged, rest idle",
                 "cache slow, shard 4 at 10 Gbit and 100% cpu, others basically idle. same hot-blob thing as May? "
                 "some big tarball",
                 ["slow-builds", "cache-timeouts"],
                 ["cache-shard-4: tx 9.9 Gbit/s"],
                 started=20, rb="cache-offload-hot-keys", cond="hot-shard",
                 out=outcome(20, "bjorn.h",
                             "A 2.1 GB Android SDK archive fetched by every job of one org, all on cache-shard-4.",
                             "Ran cache-offload-hot-keys on cache-shard-4; load evened out in minutes.",
                             [ok(run("cache-offload-hot-keys", "cache-shard-4"), "cache-offload-hot-keys")],
                             runbook="cache-offload-hot-keys")))

# 62 VAULTRAFT (paged from vault)
INCIDENTS.append(page(62, "2025-10-07T03:20", "VAULTRAFT", "vault", "critical", "VaultRaftAutopilotUnhealthy",
              "Vault autopilot reports the Raft cluster as unhealthy.", "max(vault_autopilot_healthy) < 1", 0,
              started=10, rb="vault-raft-drop-stale-peer",
              out=outcome(40, "elif.k",
                          "vault-2 was replaced during node rotation and rejoined with a new node ID; its stale peer "
                          "entry left Raft without quorum when vault-0 restarted.",
                          "Vault lost its leader during the 03:00 node rotation and secrets-broker reads failed with "
                          "500. Same mechanism as ci-0042. Ran vault-raft-drop-stale-peer for vault-2's old ID; a "
                          "leader was elected at 03:52.",
                          [ok(run("vault-raft-drop-stale-peer", "vault-2"), "vault-raft-drop-stale-peer")],
                          runbook="vault-raft-drop-stale-peer")))

# 63 REL (bare page)
INCIDENTS.append(page(63, "2025-10-14T15:45", "REL", "web-api", "high", "WebApi5xxRatio",
              "web-api is answering more than 2% of requests with 5xx.",
              'sum(rate(http_requests_total{service="web-api",code=~"5.."}[5m])) / '
              'sum(rate(http_requests_total{service="web-api"}[5m])) > 0.02', 0.087,
              started=6, rb="helm-rollback-release",
              out=outcome(30, "chen-li",
                          "2025.42.0 switched the JSON encoder of the runs API, which panics on matrix parameters with "
                          "null values.",
                          "web-api 5xx rose to 8.7% ten minutes after 2025.42.0 went out; pg-main was fine. Rolled back "
                          "to 2025.41.4 with helm-rollback-release; errors stopped at 16:05.",
                          [ok(run("helm-rollback-release", "web-api 2025.42.0 -> 2025.41.4"), "helm-rollback-release")],
                          runbook="helm-rollback-release")))

# 64 PGCONN (pool too small)
INCIDENTS.append(report(64, "2025-10-21T09:10", "PGCONN", "web-api", "high",
                 "web-api latency and 503s waiting on pgbouncer web pool",
                 "web-api p99 is 4 s with about 3% 503 since 08:50. pgbouncer web pool: cl_waiting 310, sv_active "
                 "90/90, maxwait 6 s. pg_stat_activity: no idle in transaction, longest query 0.4 s; pg-main at "
                 "260/500 connections and 45% CPU. Monday peak plus the GitHub Marketplace listing that went live "
                 "Friday.",
                 ["latency-spike", "5xx", "connection-exhaustion"],
                 ["pgbouncer: pool quarry/web cl_waiting=310 sv_active=90 maxwait=6",
                  "pgx: acquire conn: timeout after 3s (pool web)"],
                 started=20, rb="pgbouncer-raise-pool-size", cond="pool-small",
                 out=outcome(25, "chen-li",
                             "Traffic growth after the Marketplace listing outgrew the web pool (90).",
                             "Clients waited at PgBouncer while pg-main had room and no long transactions. Ran "
                             "pgbouncer-raise-pool-size (web 90 -> 130); cl_waiting cleared and p99 back to 350 ms.",
                             [ok(run("pgbouncer-raise-pool-size", "web 90 -> 130"), "pgbouncer-raise-pool-size")],
                             runbook="pgbouncer-raise-pool-size")))

# 65 PULLRATE (bare page)
INCIDENTS.append(page(65, "2025-10-28T11:20", "PULLRATE", "runner-fleet", "high", "RunnerImagePullBackOff", D_PULL,
              EXPR_PULL, 87, sym=["image-pull-backoff"], started=10, rb="registry-refresh-upstream-credentials",
              out=outcome(30, "nadia",
                          "Docker Hub token on the proxy endpoint expired again.",
                          "Registry logs showed 429 toomanyrequests from Docker Hub. Ran "
                          "registry-refresh-upstream-credentials; pulls recovered. Moving the proxy to Docker Hub's "
                          "organization access tokens with automatic rotation.",
                          [ok(run("registry-refresh-upstream-credentials"), "registry-refresh-upstream-credentials")],
                          runbook="registry-refresh-upstream-credentials")))

# 66 LOGBUF, still open at the end of the history
INCIDENTS.append(report(66, "2025-11-11T19:50", "LOGBUF", "log-stream", "high", "log append errors, JOBLOGS near max bytes",
                 "Append errors climbing on log-stream. JOBLOGS is at 97% of max_bytes and the archiver consumer has "
                 "1000 acks pending. New runs have partial logs.",
                 ["log-gaps"],
                 ["nats: maximum bytes exceeded"],
                 started=15, rb="logstream-drain-jetstream", out=None))


# --------------------------------------------------------------------------
# Build events and the answer key
# --------------------------------------------------------------------------
def build():
    events = []
    rb_added = {}
    for at, names in RUNBOOK_DATES:
        for nm in names:
            assert nm not in rb_added, nm
            rb_added[nm] = ts(at)
            events.append((ts(at), 0, {"at": iso(ts(at)), "type": "apply", "object": runbook_obj(nm, RUNBOOKS[nm])}))
    assert set(rb_added) == set(RUNBOOKS), set(RUNBOOKS) ^ set(rb_added)
    events.append((ts("2024-10-01T00:00"), -1, {"at": iso(ts("2024-10-01T00:00")), "type": "apply",
                                                 "object": topology_cm(TOPOLOGY_V1)}))
    for m in MIGRATIONS:
        obj = {"apiVersion": "recall.dev/v1alpha1", "kind": "ArchitectureMigration",
               "metadata": {"name": m["name"]}, "spec": m["spec"]}
        events.append((ts(m["at"]), 0, {"at": iso(ts(m["at"])), "type": "apply", "object": obj}))
    t2 = ts("2025-07-21T05:00") + timedelta(minutes=1)
    events.append((t2, 0, {"at": iso(t2), "type": "apply", "object": topology_cm(TOPOLOGY_V2)}))
    for at, obj in CONTRADICTIONS:
        events.append((ts(at), 0, {"at": iso(ts(at)), "type": "apply", "object": obj}))

    byn = {}
    prev = None
    for inc in INCIDENTS:
        inc["name"] = f"ci-{inc['n']:04d}"
        inc["t"] = ts(inc["at"])
        assert prev is None or inc["t"] > prev, inc["name"]
        prev = inc["t"]
        inc["out_t"] = inc["t"] + timedelta(minutes=inc["out"]["after"]) if inc["out"] else None
        byn[inc["n"]] = inc
    assert [i["n"] for i in INCIDENTS] == list(range(1, len(INCIDENTS) + 1))

    rows = []
    for inc in INCIDENTS:
        t = inc["t"]
        catalog = {nm for nm, d in rb_added.items() if d <= t}
        fam = [p for p in INCIDENTS if p["fam"] == inc["fam"] and p["t"] < t and p["out_t"] and p["out_t"] < t]
        fam.sort(key=lambda p: p["t"], reverse=True)
        precedents = [p["name"] for p in fam]
        rb = inc["rb"]
        assert rb is None or rb in catalog, (inc["name"], rb)
        unsafe = []
        # stale after a migration
        for m in MIGRATIONS:
            if ts(m["at"]) <= t:
                for r in m["spec"]["impactedRunbooks"]:
                    if r in catalog and (inc["svc"] in RUNBOOKS[r]["services"] or inc["fam"] in m["families"]):
                        unsafe.append(r)
        # failed before under the same failure, unless it is the right fix now
        for p in fam:
            for _text, res, r in p["out"]["actions"]:
                if res == "failed" and r and r != rb and r in catalog:
                    unsafe.append(r)
        unsafe = sorted(set(unsafe))
        assert rb not in unsafe, inc["name"]
        truth = {"precedents": precedents, "runbook": rb, "novel": not precedents, "unsafeRunbooks": unsafe}

        spec = {"service": inc["svc"], "severity": inc["sev"], "title": inc["title"]}
        if inc["desc"]:
            spec["description"] = inc["desc"]
        if inc["sym"]:
            spec["symptoms"] = inc["sym"]
        spec["errorSignatures"] = inc["errs"]
        if inc["deploy"]:
            spec["deployment"] = inc["deploy"]
        spec["startedAt"] = iso(t - timedelta(minutes=inc["started"]))
        if inc["kind"] == "page":
            spec["labels"] = {"source": "alertmanager", "alertname": inc["alert"], "severity": inc["sev"],
                              "team": TEAM[inc["svc"]], "cluster": "use1-prod"}
        else:
            spec["labels"] = {"team": TEAM[inc["svc"]], "source": inc["source"]}
        obj = {"apiVersion": "recall.dev/v1alpha1", "kind": "Incident",
               "metadata": {"name": inc["name"]}, "spec": spec}
        events.append((t, 1, {"at": iso(t), "type": "incident", "object": obj, "truth": truth}))
        if inc["out"]:
            o = inc["out"]
            if o["runbook"]:
                assert o["runbook"] in catalog
            res = {"rootCause": o["root"], "summary": o["summary"]}
            if o["runbook"]:
                res["runbook"] = o["runbook"]
            res["actions"] = [{"action": a, "result": r} for a, r, _ in o["actions"]]
            res["confirmedBy"] = o["by"]
            for _a, _r, r in o["actions"]:
                assert r is None or r in catalog, (inc["name"], r)
            events.append((inc["out_t"], 2, {"at": iso(inc["out_t"]), "type": "outcome",
                                             "incident": inc["name"], "resolution": res}))
        rows.append((inc, truth))

    events.sort(key=lambda e: (e[0], e[1]))
    ats = [e[0] for e in events]
    assert ats == sorted(ats)
    with OUT.open("w") as f:
        for _, _, ev in events:
            f.write(json.dumps(ev, ensure_ascii=False) + "\n")
    return rows, events


def main():
    import re
    rows, events = build()
    tag = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
    for inc, _ in rows:
        for s in inc["sym"]:
            assert tag.match(s), s
    pages = [i for i, _ in rows if i["kind"] == "page"]
    novel = [i for i, t in rows if t["novel"]]
    print(f"{len(events)} events, {len(rows)} incidents, {len(pages)} pages "
          f"({sum(1 for p in pages if not p['sym'])} without symptoms), "
          f"{len(novel)} novel ({100 * len(novel) / len(rows):.1f}%), "
          f"{sum(1 for i, _ in rows if i['out'])} outcomes, {len(RUNBOOKS)} runbooks")
    for inc, t in rows:
        print(f"{inc['name']} {inc['at']} {inc['fam']:<9} {inc['kind']:<6} {inc['svc']:<17} "
              f"rb={t['runbook']} prec={','.join(p[3:] for p in t['precedents'])} unsafe={t['unsafeRunbooks']}")


if __name__ == "__main__":
    main()
