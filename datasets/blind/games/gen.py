#!/usr/bin/env python3
"""Write history.jsonl for the fictional Shardfall game backend (datasets/blind/games).

Standard library only, deterministic: the same bytes on every run. Prints one
line per incident with its failure family, condition and answer key, then the
counts. The answer key (`truth`) is derived below from each incident's family,
its condition and the times of earlier outcomes; nothing in `truth` is typed
in by hand.
"""
import datetime as dt
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
API = "recall.dev/v1alpha1"
UTC = dt.timezone.utc


def t(s):
    return dt.datetime.strptime(s, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def name(n):
    return "gm-%04d" % n


# ---------------------------------------------------------------------------
# Topology
# ---------------------------------------------------------------------------
TOPOLOGY = [
    ("lobby-api", ["profile-service", "matchmaker", "storefront", "leaderboard-service", "warden-ac", "patch-origin"]),
    ("matchmaker", ["fleet-allocator", "profile-service", "warden-ac"]),
    ("fleet-allocator", ["arena-servers"]),
    ("arena-servers", ["warden-ac", "leaderboard-service", "profile-service", "kafka-bus"]),
    ("profile-service", ["player-pg"]),
    ("player-pg", []),
    ("leaderboard-service", ["rank-redis", "kafka-bus"]),
    ("rank-redis", []),
    ("storefront", ["payment-broker", "inventory-docs", "kafka-bus", "profile-service"]),
    ("payment-broker", ["player-pg", "kafka-bus"]),
    ("inventory-docs", []),
    ("chat-relay", ["profile-service", "warden-ac", "kafka-bus"]),
    ("warden-ac", ["kafka-bus", "profile-service"]),
    ("patch-origin", []),
    ("telemetry-sink", ["kafka-bus"]),
    ("kafka-bus", []),
]
SERVICES = [s for s, _ in TOPOLOGY]
EDGES = {(a, b) for a, deps in TOPOLOGY for b in deps}


def adjacent(a, b):
    return (a, b) in EDGES or (b, a) in EDGES


def topology_yaml():
    width = max(len(s) for s in SERVICES) + 1
    lines = []
    for s, deps in TOPOLOGY:
        lines.append("%s {dependsOn: [%s]}" % ((s + ":").ljust(width), ", ".join(deps)))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------
KUBECTL = "bitnami/kubectl:1.30.4"
AWS = "amazon/aws-cli:2.17.20"
HELM = "alpine/helm:3.15.4"
REDIS = "redis:7.0.15"
KAFKA = "confluentinc/cp-kafka:7.6.1"
PG = "postgres:16.4"
TOOLS = "registry.cobalthollow.example/ops-tools:2025.02"


def step(name_, image, command, dry, rollback, risk, blast, secs):
    return {"name": name_, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


RUNBOOKS = {}


def runbook(name_, title, description, services, symptoms, steps):
    RUNBOOKS[name_] = {
        "apiVersion": API, "kind": "Runbook", "metadata": {"name": name_},
        "spec": {"title": title, "description": description, "services": services,
                 "symptoms": symptoms, "steps": steps}}


runbook(
    "release-rollback",
    "Roll a Helm release back to its previous revision",
    "Generic response when a service regressed right after its own release: check that the "
    "previous revision was healthy, roll the Helm release back to it and watch the rollout. "
    "Use it only when the release that just went out is the cause; it does nothing for "
    "failures that live in a dependency or in infrastructure.",
    ["lobby-api", "matchmaker", "storefront", "profile-service", "leaderboard-service",
     "chat-relay", "payment-broker", "fleet-allocator", "warden-ac", "telemetry-sink"],
    ["5xx", "error-rate", "latency-spike", "crashloop"],
    [step("show-history", HELM, ["helm", "history", "$(SERVICE)", "-n", "$(NAMESPACE)", "--max", "5"],
          ["helm", "history", "$(SERVICE)", "-n", "$(NAMESPACE)", "--max", "5"], [],
          "low", "read only", 10),
     step("rollback-release", HELM,
          ["helm", "rollback", "$(SERVICE)", "0", "-n", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
          ["helm", "rollback", "$(SERVICE)", "0", "-n", "$(NAMESPACE)", "--dry-run"],
          ["helm", "rollback", "$(SERVICE)", "$(FAILED_REVISION)", "-n", "$(NAMESPACE)", "--wait"],
          "medium", "one service in one regional cluster", 420),
     step("watch-rollout", KUBECTL,
          ["kubectl", "-n", "$(NAMESPACE)", "rollout", "status", "deployment/$(SERVICE)", "--timeout=10m"],
          ["kubectl", "-n", "$(NAMESPACE)", "get", "deployment", "$(SERVICE)", "-o", "wide"], [],
          "low", "read only", 120)])

runbook(
    "rolling-restart",
    "Rolling restart of one Deployment",
    "Restart every pod of a Deployment one surge at a time, respecting its PodDisruptionBudget. "
    "Clears state that leaked inside the processes (stuck connections, a wedged cache, slow "
    "memory growth). It does not touch causes outside the pods.",
    ["lobby-api", "matchmaker", "storefront", "profile-service", "leaderboard-service",
     "chat-relay", "payment-broker", "warden-ac", "telemetry-sink", "fleet-allocator"],
    ["memory-pressure", "latency-spike", "timeouts"],
    [step("restart", KUBECTL,
          ["kubectl", "-n", "$(NAMESPACE)", "rollout", "restart", "deployment/$(SERVICE)"],
          ["kubectl", "-n", "$(NAMESPACE)", "get", "pdb,deployment", "-l", "app=$(SERVICE)"], [],
          "medium", "every pod of one service, one surge at a time", 300),
     step("watch-rollout", KUBECTL,
          ["kubectl", "-n", "$(NAMESPACE)", "rollout", "status", "deployment/$(SERVICE)", "--timeout=15m"],
          ["kubectl", "-n", "$(NAMESPACE)", "get", "pods", "-l", "app=$(SERVICE)"], [],
          "low", "read only", 300)])

runbook(
    "rankredis-sentinel-failover",
    "Promote a healthy rank-redis replica through Sentinel",
    "The self-hosted rank-redis primary stops answering for seconds at a time while it forks "
    "for an RDB snapshot close to maxmemory, and its replicas fall into a full-resync loop. "
    "Ask Sentinel to promote the healthiest replica, then pause RDB snapshots on the new "
    "primary until the working set has been trimmed. Applies to the Sentinel deployment only.",
    ["rank-redis", "leaderboard-service"],
    ["latency-spike", "timeouts", "replication-lag"],
    [step("check-quorum", REDIS,
          ["redis-cli", "-h", "rank-redis-sentinel", "-p", "26379", "SENTINEL", "replicas", "rank-primary"],
          ["redis-cli", "-h", "rank-redis-sentinel", "-p", "26379", "SENTINEL", "ckquorum", "rank-primary"], [],
          "low", "read only", 10),
     step("promote-replica", REDIS,
          ["redis-cli", "-h", "rank-redis-sentinel", "-p", "26379", "SENTINEL", "FAILOVER", "rank-primary"],
          ["redis-cli", "-h", "rank-redis-sentinel", "-p", "26379", "SENTINEL", "get-master-addr-by-name", "rank-primary"],
          [], "high", "all leaderboard reads and writes, 2 to 10 s of errors", 30),
     step("pause-snapshots", REDIS,
          ["redis-cli", "-h", "$(NEW_PRIMARY)", "CONFIG", "SET", "save", ""],
          ["redis-cli", "-h", "$(NEW_PRIMARY)", "CONFIG", "GET", "save"],
          ["redis-cli", "-h", "$(NEW_PRIMARY)", "CONFIG", "SET", "save", "3600 1"],
          "medium", "durability of rank-redis until snapshots resume", 5)])

runbook(
    "rankredis-managed-failover",
    "Fail over a starved rank-redis shard on ElastiCache",
    "ElastiCache version of the stalled-primary response: when one shard's primary is starved "
    "(snapshot fork during peak, swap in use, replicas lagging by tens of seconds), trigger a "
    "managed failover of that node group and move the snapshot window out of peak hours. There "
    "is no Sentinel after the move to ElastiCache.",
    ["rank-redis", "leaderboard-service"],
    ["latency-spike", "timeouts", "replication-lag"],
    [step("describe-group", AWS,
          ["aws", "elasticache", "describe-replication-groups", "--replication-group-id", "rank-redis"],
          ["aws", "elasticache", "describe-replication-groups", "--replication-group-id", "rank-redis"], [],
          "low", "read only", 10),
     step("failover-node-group", AWS,
          ["aws", "elasticache", "test-failover", "--replication-group-id", "rank-redis",
           "--node-group-id", "$(NODE_GROUP)"],
          ["aws", "elasticache", "describe-events", "--source-type", "replication-group",
           "--source-identifier", "rank-redis", "--duration", "60"], [],
          "high", "one rank-redis shard, about 20 s of write errors", 240),
     step("move-snapshot-window", AWS,
          ["aws", "elasticache", "modify-replication-group", "--replication-group-id", "rank-redis",
           "--snapshot-window", "09:00-10:00", "--apply-immediately"],
          ["aws", "elasticache", "describe-replication-groups", "--replication-group-id", "rank-redis",
           "--query", "ReplicationGroups[0].SnapshotWindow"],
          ["aws", "elasticache", "modify-replication-group", "--replication-group-id", "rank-redis",
           "--snapshot-window", "$(OLD_WINDOW)", "--apply-immediately"],
          "low", "snapshot schedule of rank-redis", 30)])

runbook(
    "fleet-raise-asg-max",
    "Raise the max size of a region's arena-ds Auto Scaling group",
    "Evening peaks can exhaust the arena-ds Auto Scaling group of a region: cluster-autoscaler "
    "reports that the max node group size is reached, GameServers stay Pending with "
    "FailedScheduling and fleet-allocator answers UnAllocated. Raise the group's max size and "
    "check that new nodes join and the ready buffer refills. Written after gm-0004.",
    ["arena-servers", "fleet-allocator"],
    ["allocation-failures", "scheduling-failures"],
    [step("read-autoscaler-status", KUBECTL,
          ["kubectl", "-n", "kube-system", "get", "configmap", "cluster-autoscaler-status", "-o", "yaml"],
          ["kubectl", "-n", "kube-system", "get", "configmap", "cluster-autoscaler-status", "-o", "yaml"], [],
          "low", "read only", 10),
     step("raise-max-size", AWS,
          ["aws", "autoscaling", "update-auto-scaling-group", "--auto-scaling-group-name",
           "arena-ds-$(REGION)", "--max-size", "$(NEW_MAX)"],
          ["aws", "autoscaling", "describe-auto-scaling-groups", "--auto-scaling-group-names", "arena-ds-$(REGION)"],
          ["aws", "autoscaling", "update-auto-scaling-group", "--auto-scaling-group-name",
           "arena-ds-$(REGION)", "--max-size", "$(OLD_MAX)"],
          "medium", "game server nodes of one region; cost", 60),
     step("watch-pending", KUBECTL,
          ["kubectl", "-n", "arena", "get", "gameservers", "-o", "wide"],
          ["kubectl", "-n", "arena", "get", "gameservers", "-o", "wide"], [],
          "low", "read only", 300)])

runbook(
    "fleet-raise-nodepool-limits",
    "Raise the cpu limit of the arena-ds Karpenter NodePool",
    "Karpenter version of the capacity response: when the arena-ds NodePool reaches its cpu "
    "limit, Karpenter stops launching nodes ('all available instance types exceed limits for "
    "nodepool'), GameServers stay Pending and allocations fail. Raise spec.limits.cpu for the "
    "region and watch new NodeClaims become Ready.",
    ["arena-servers", "fleet-allocator"],
    ["allocation-failures", "scheduling-failures"],
    [step("read-nodepool", KUBECTL,
          ["kubectl", "get", "nodepool", "arena-ds", "-o", "jsonpath={.spec.limits}{\"\\n\"}{.status.resources}"],
          ["kubectl", "get", "nodepool", "arena-ds", "-o", "yaml"], [],
          "low", "read only", 10),
     step("raise-cpu-limit", KUBECTL,
          ["kubectl", "patch", "nodepool", "arena-ds", "--type", "merge", "-p",
           "{\"spec\":{\"limits\":{\"cpu\":\"$(CPU_LIMIT)\"}}}"],
          ["kubectl", "patch", "nodepool", "arena-ds", "--type", "merge", "--dry-run=server", "-p",
           "{\"spec\":{\"limits\":{\"cpu\":\"$(CPU_LIMIT)\"}}}"],
          ["kubectl", "patch", "nodepool", "arena-ds", "--type", "merge", "-p",
           "{\"spec\":{\"limits\":{\"cpu\":\"$(OLD_CPU_LIMIT)\"}}}"],
          "medium", "game server nodes of one region; cost", 30),
     step("watch-nodeclaims", KUBECTL,
          ["kubectl", "get", "nodeclaims", "-l", "karpenter.sh/nodepool=arena-ds", "-w", "--request-timeout=5m"],
          ["kubectl", "get", "nodeclaims", "-l", "karpenter.sh/nodepool=arena-ds"], [],
          "low", "read only", 300)])

runbook(
    "arena-fleet-previous-build",
    "Point an arena Fleet back at the previous dedicated-server build",
    "A new dedicated-server build that never reports Ready (health pings missing, a crash "
    "during start-up) makes GameServers cycle to Unhealthy; the ready buffer drains and "
    "allocations fail while nodes sit half empty. Set the Fleet's image to the previous build. "
    "The fleet controller replaces only servers that are not allocated, so matches in progress "
    "keep their servers.",
    ["arena-servers", "fleet-allocator"],
    ["allocation-failures", "pod-restarts", "crashloop"],
    [step("show-image", KUBECTL,
          ["kubectl", "-n", "arena", "get", "fleet", "$(FLEET)", "-o",
           "jsonpath={.spec.template.spec.template.spec.containers[0].image}"],
          ["kubectl", "-n", "arena", "get", "fleet", "$(FLEET)", "-o", "yaml"], [],
          "low", "read only", 10),
     step("set-previous-image", KUBECTL,
          ["kubectl", "-n", "arena", "patch", "fleet", "$(FLEET)", "--type", "json", "-p",
           "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/template/spec/containers/0/image\",\"value\":\"$(PREVIOUS_IMAGE)\"}]"],
          ["kubectl", "-n", "arena", "patch", "fleet", "$(FLEET)", "--type", "json", "--dry-run=server", "-p",
           "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/template/spec/containers/0/image\",\"value\":\"$(PREVIOUS_IMAGE)\"}]"],
          ["kubectl", "-n", "arena", "patch", "fleet", "$(FLEET)", "--type", "json", "-p",
           "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/template/spec/containers/0/image\",\"value\":\"$(CURRENT_IMAGE)\"}]"],
          "medium", "one fleet in one region; allocated servers untouched", 600),
     step("freeze-build-pipeline", TOOLS,
          ["shipctl", "freeze", "--fleet", "$(FLEET)", "--reason", "unhealthy build"],
          ["shipctl", "status", "--fleet", "$(FLEET)"],
          ["shipctl", "unfreeze", "--fleet", "$(FLEET)"],
          "low", "server build promotions for one fleet", 5)])

runbook(
    "payments-sync-webhook-secret",
    "Sync a payment provider's webhook signing secret into payment-broker",
    "When a payment provider rotates its webhook signing secret and payment-broker still "
    "holds the old one, every webhook fails verification: cards are charged but orders are "
    "never confirmed and nothing is granted. Copy the current secret from the provider's API "
    "into Vault, restart payment-broker so it reloads it, and ask the provider to redeliver "
    "failed webhooks (grants are idempotent by order id). Written after gm-0007.",
    ["payment-broker", "storefront"],
    ["payment-failures", "missing-items"],
    [step("compare-secret", TOOLS,
          ["payctl", "webhooks", "secret-status", "--provider", "$(PROVIDER)"],
          ["payctl", "webhooks", "secret-status", "--provider", "$(PROVIDER)"], [],
          "low", "read only", 10),
     step("sync-secret", TOOLS,
          ["payctl", "webhooks", "sync-secret", "--provider", "$(PROVIDER)", "--to",
           "vault:secret/payment-broker/webhooks"],
          ["payctl", "webhooks", "sync-secret", "--provider", "$(PROVIDER)", "--to",
           "vault:secret/payment-broker/webhooks", "--dry-run"],
          ["payctl", "webhooks", "sync-secret", "--provider", "$(PROVIDER)", "--restore-version",
           "$(PREVIOUS_VERSION)"],
          "medium", "webhook verification for one provider", 20),
     step("reload-broker", KUBECTL,
          ["kubectl", "-n", "commerce", "rollout", "restart", "deployment/payment-broker"],
          ["kubectl", "-n", "commerce", "get", "deployment", "payment-broker"], [],
          "low", "payment-broker pods, one at a time", 120),
     step("redeliver-failed", TOOLS,
          ["payctl", "webhooks", "redeliver", "--provider", "$(PROVIDER)", "--status", "failed",
           "--since", "$(SINCE)"],
          ["payctl", "webhooks", "redeliver", "--provider", "$(PROVIDER)", "--status", "failed",
           "--since", "$(SINCE)", "--count-only"], [],
          "low", "orders of one provider since the rotation", 300)])

runbook(
    "storefront-replay-grants",
    "Unstick the store-granter consumers and reconcile paid orders",
    "store-granter falls into a rebalance loop when writes to inventory-docs slow down: a poll "
    "batch takes longer than max.poll.interval.ms, the commit fails, the group rebalances and "
    "the same batch starts again. Payments are confirmed; grants stall. Restart the granters "
    "with a small poll batch, then grant every paid order that has no grant yet. Written after "
    "gm-0014.",
    ["storefront", "kafka-bus", "inventory-docs"],
    ["consumer-lag", "missing-items"],
    [step("describe-group", KAFKA,
          ["kafka-consumer-groups", "--bootstrap-server", "kafka-bus:9092", "--describe", "--group", "store-granter"],
          ["kafka-consumer-groups", "--bootstrap-server", "kafka-bus:9092", "--describe", "--group", "store-granter"], [],
          "low", "read only", 15),
     step("small-poll-batches", KUBECTL,
          ["kubectl", "-n", "commerce", "set", "env", "deployment/store-granter", "MAX_POLL_RECORDS=50"],
          ["kubectl", "-n", "commerce", "set", "env", "deployment/store-granter", "MAX_POLL_RECORDS=50", "--dry-run=server"],
          ["kubectl", "-n", "commerce", "set", "env", "deployment/store-granter", "MAX_POLL_RECORDS=500"],
          "low", "store-granter pods", 120),
     step("reconcile-paid-orders", TOOLS,
          ["grantctl", "reconcile", "--paid-since", "$(SINCE)", "--apply"],
          ["grantctl", "reconcile", "--paid-since", "$(SINCE)"], [],
          "medium", "inventories of players with ungranted paid orders", 600)])

runbook(
    "chat-relay-staged-restart",
    "Stop a chat-relay reconnect storm with admission throttling and staged restarts",
    "One chat-relay pod dies (OOM, node drain, a bad NIC); its clients reconnect to the other "
    "pods at once, those run out of memory and die in turn. Restarting everything feeds the "
    "storm. Throttle new connections at admission, add pods, bring crashed pods back one at a "
    "time, then lift the throttle in steps.",
    ["chat-relay"],
    ["connection-drops", "oom-kill", "pod-restarts"],
    [step("throttle-admission", TOOLS,
          ["chatctl", "admission", "set", "--region", "$(REGION)", "--max-new-per-second", "1500"],
          ["chatctl", "admission", "get", "--region", "$(REGION)"],
          ["chatctl", "admission", "set", "--region", "$(REGION)", "--max-new-per-second", "20000"],
          "medium", "new chat connections in one region", 10),
     step("add-relays", KUBECTL,
          ["kubectl", "-n", "chat", "scale", "statefulset/chat-relay", "--replicas", "$(REPLICAS)"],
          ["kubectl", "-n", "chat", "get", "statefulset", "chat-relay"],
          ["kubectl", "-n", "chat", "scale", "statefulset/chat-relay", "--replicas", "$(OLD_REPLICAS)"],
          "low", "chat pool capacity", 180),
     step("restart-crashed-one-by-one", TOOLS,
          ["chatctl", "pods", "restart-crashed", "--region", "$(REGION)", "--one-at-a-time", "--pause", "60s"],
          ["chatctl", "pods", "list", "--region", "$(REGION)", "--state", "crashed"], [],
          "medium", "chat-relay pods of one region", 900),
     step("lift-throttle", TOOLS,
          ["chatctl", "admission", "ramp", "--region", "$(REGION)", "--to", "20000", "--over", "15m"],
          ["chatctl", "admission", "get", "--region", "$(REGION)"], [],
          "low", "new chat connections in one region", 900)])

runbook(
    "warden-revert-signature-pack",
    "Reactivate the previous anti-cheat signature pack and void its bans",
    "A detection signature pack that matches legitimate software (overlays, capture tools, "
    "drivers) kicks and bans innocent players minutes after it goes live. Activate the previous "
    "pack and void the bans issued by the bad one.",
    ["warden-ac", "arena-servers", "lobby-api"],
    ["player-kicks", "false-positives", "login-failures"],
    [step("list-packs", TOOLS, ["wardenctl", "packs", "list", "--last", "3"],
          ["wardenctl", "packs", "list", "--last", "3"], [], "low", "read only", 5),
     step("activate-previous", TOOLS,
          ["wardenctl", "packs", "activate", "--pack", "$(PREVIOUS_PACK)"],
          ["wardenctl", "packs", "diff", "--from", "$(CURRENT_PACK)", "--to", "$(PREVIOUS_PACK)"],
          ["wardenctl", "packs", "activate", "--pack", "$(CURRENT_PACK)"],
          "medium", "detections in all regions", 60),
     step("void-bans", TOOLS,
          ["wardenctl", "bans", "void", "--issued-by-pack", "$(CURRENT_PACK)", "--reason", "false-positive"],
          ["wardenctl", "bans", "void", "--issued-by-pack", "$(CURRENT_PACK)", "--count-only"],
          ["wardenctl", "bans", "restore", "--voided-by-job", "$(JOB_ID)"],
          "high", "every ban issued by one pack", 300)])

runbook(
    "warden-scale-verifiers",
    "Add heartbeat verifiers and lengthen the heartbeat grace",
    "Heartbeat verification backlog: warden-verifier pods, CPU-throttled during a concurrency "
    "spike, cannot verify client heartbeats within the grace period, and game servers remove "
    "players for a missing acknowledgement. No bans are issued. Add verifiers and lengthen the "
    "grace period until the queue is drained.",
    ["warden-ac", "arena-servers"],
    ["player-kicks", "cpu-saturation", "queue-backlog"],
    [step("add-verifiers", KUBECTL,
          ["kubectl", "-n", "integrity", "scale", "deployment/warden-verifier", "--replicas", "$(REPLICAS)"],
          ["kubectl", "-n", "integrity", "get", "hpa,deployment", "warden-verifier"],
          ["kubectl", "-n", "integrity", "scale", "deployment/warden-verifier", "--replicas", "$(OLD_REPLICAS)"],
          "low", "warden-verifier capacity", 120),
     step("lengthen-grace", TOOLS,
          ["wardenctl", "config", "set", "heartbeat.graceSeconds", "45"],
          ["wardenctl", "config", "get", "heartbeat.graceSeconds"],
          ["wardenctl", "config", "set", "heartbeat.graceSeconds", "20"],
          "medium", "cheat detection latency in all regions", 10)])

runbook(
    "patch-cdn-shift-traffic",
    "Move a region's patch traffic to the other CDN",
    "Patch downloads are slow in one region or for one network because one of the two CDNs is "
    "degraded there, while the edge hit ratio stays high and the origin is quiet. Move that "
    "region's steering weight to the healthy CDN.",
    ["patch-origin"],
    ["slow-downloads"],
    [step("health-by-region", TOOLS,
          ["cdnctl", "health", "--patch", "$(PATCH)", "--by", "region,cdn"],
          ["cdnctl", "health", "--patch", "$(PATCH)", "--by", "region,cdn"], [],
          "low", "read only", 15),
     step("set-weights", TOOLS,
          ["cdnctl", "steering", "set", "--region", "$(REGION)", "--weights",
           "$(HEALTHY_CDN)=90,$(DEGRADED_CDN)=10"],
          ["cdnctl", "steering", "get", "--region", "$(REGION)"],
          ["cdnctl", "steering", "set", "--region", "$(REGION)", "--weights", "$(OLD_WEIGHTS)"],
          "medium", "patch downloads of one region", 90)])

runbook(
    "patch-origin-prewarm",
    "Push the current patch into both CDNs' shield tiers and add origin capacity",
    "On patch day, chunks that were not pushed to the CDN shield tiers in advance make every "
    "edge miss at the same time: the hit ratio falls, patch-origin egress saturates and "
    "downloads crawl in every region. Add origin replicas and push the patch's chunks into "
    "both CDNs' shield tiers.",
    ["patch-origin"],
    ["slow-downloads", "cache-miss"],
    [step("add-origin-replicas", KUBECTL,
          ["kubectl", "-n", "delivery", "scale", "deployment/patch-origin", "--replicas", "$(REPLICAS)"],
          ["kubectl", "-n", "delivery", "get", "deployment", "patch-origin"],
          ["kubectl", "-n", "delivery", "scale", "deployment/patch-origin", "--replicas", "$(OLD_REPLICAS)"],
          "low", "patch-origin capacity", 120),
     step("push-to-shields", TOOLS,
          ["cdnctl", "prewarm", "--manifest", "$(PATCH_MANIFEST)", "--cdn", "all", "--tier", "shield"],
          ["cdnctl", "prewarm", "--manifest", "$(PATCH_MANIFEST)", "--cdn", "all", "--tier", "shield", "--plan"], [],
          "medium", "origin egress for the duration of the push", 1200),
     step("watch-hit-ratio", TOOLS,
          ["cdnctl", "stats", "--patch", "$(PATCH)", "--metric", "hit-ratio", "--watch", "10m"],
          ["cdnctl", "stats", "--patch", "$(PATCH)", "--metric", "hit-ratio"], [],
          "low", "read only", 600)])

runbook(
    "mm-widen-search-window",
    "Let a queue's MMR and ping window grow sooner",
    "Long queues when too few players are searching to fill matches inside the strict MMR band "
    "and ping cap (off-peak hours, a small region). Let the window widen after 45 s in larger "
    "steps and accept a higher ping for that queue and region.",
    ["matchmaker", "lobby-api"],
    ["queue-backlog"],
    [step("simulate", TOOLS,
          ["mmctl", "pool", "simulate", "$(QUEUE)", "--region", "$(REGION)", "--mmr-expand-after", "45s",
           "--mmr-expand-step", "150", "--max-ping-ms", "140"],
          ["mmctl", "pool", "get", "$(QUEUE)", "--region", "$(REGION)"], [],
          "low", "read only", 20),
     step("apply-window", TOOLS,
          ["mmctl", "pool", "set", "$(QUEUE)", "--region", "$(REGION)", "--mmr-expand-after", "45s",
           "--mmr-expand-step", "150", "--max-ping-ms", "140"],
          ["mmctl", "pool", "set", "$(QUEUE)", "--region", "$(REGION)", "--mmr-expand-after", "45s",
           "--mmr-expand-step", "150", "--max-ping-ms", "140", "--dry-run"],
          ["mmctl", "pool", "reset", "$(QUEUE)", "--region", "$(REGION)"],
          "medium", "match quality of one queue in one region", 15)])

runbook(
    "mm-scale-evaluators",
    "Add matchmaker evaluators and cap candidates per cycle",
    "Long queues when the evaluator that scores candidate matches cannot keep up: a large pool, "
    "mm-evaluator at its CPU limit, cycles overrunning their deadline so proposals are dropped. "
    "Add evaluator replicas and cap the candidates considered per cycle.",
    ["matchmaker", "lobby-api"],
    ["queue-backlog", "cpu-saturation"],
    [step("add-evaluators", KUBECTL,
          ["kubectl", "-n", "mm", "scale", "deployment/mm-evaluator", "--replicas", "$(REPLICAS)"],
          ["kubectl", "-n", "mm", "get", "deployment,hpa", "mm-evaluator"],
          ["kubectl", "-n", "mm", "scale", "deployment/mm-evaluator", "--replicas", "$(OLD_REPLICAS)"],
          "low", "matchmaker capacity", 120),
     step("cap-candidates", TOOLS,
          ["mmctl", "pool", "set", "$(QUEUE)", "--region", "$(REGION)", "--max-candidates", "400"],
          ["mmctl", "pool", "get", "$(QUEUE)", "--region", "$(REGION)"],
          ["mmctl", "pool", "reset", "$(QUEUE)", "--region", "$(REGION)"],
          "medium", "match quality of one queue in one region", 15)])

IDLE_SQL = ("SELECT pid, usename, application_name, now() - xact_start AS age FROM pg_stat_activity "
            "WHERE state LIKE 'idle in transaction%' AND now() - xact_start > interval '10 minutes' "
            "ORDER BY age DESC")
runbook(
    "playerdb-kill-idle-transactions",
    "End sessions left idle in transaction on player-pg and vacuum",
    "A session left idle in transaction (a reporting export, a support shell, a paused schema "
    "migration) pins the oldest xmin; autovacuum cannot remove dead rows and reads slow down "
    "as tables bloat. Terminate sessions idle in transaction for more than 10 minutes, vacuum "
    "the hot tables and put an idle_in_transaction_session_timeout on the role that held them. "
    "Written after gm-0011.",
    ["player-pg", "profile-service", "payment-broker"],
    ["latency-spike", "db-bloat"],
    [step("list-idle-transactions", PG, ["psql", "service=players-admin", "-c", IDLE_SQL],
          ["psql", "service=players-admin", "-c", IDLE_SQL], [], "low", "read only", 5),
     step("terminate", PG,
          ["psql", "service=players-admin", "-c",
           "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' "
           "AND now() - xact_start > interval '10 minutes'"],
          ["psql", "service=players-admin", "-c", IDLE_SQL], [],
          "medium", "the sessions listed by the previous step", 5),
     step("vacuum-hot-tables", PG,
          ["psql", "service=players-admin", "-c",
           "VACUUM (VERBOSE, ANALYZE) profiles.player_profile, payments.ledger_entry"],
          ["psql", "service=players-admin", "-c",
           "SELECT relname, n_dead_tup FROM pg_stat_user_tables ORDER BY n_dead_tup DESC LIMIT 10"], [],
          "low", "I/O on player-pg", 1200),
     step("role-timeout", PG,
          ["psql", "service=players-admin", "-c",
           "ALTER ROLE $(ROLE) SET idle_in_transaction_session_timeout = '5min'"],
          ["psql", "service=players-admin", "-c", "SELECT rolname, rolconfig FROM pg_roles WHERE rolname = '$(ROLE)'"],
          ["psql", "service=players-admin", "-c",
           "ALTER ROLE $(ROLE) RESET idle_in_transaction_session_timeout"],
          "low", "one database role", 5)])

runbook(
    "leaderboard-chunked-reset",
    "Stop the season-reset job and run the chunked reset",
    "The season-reset CronJob (Mondays 00:00 UTC) merges and deletes whole sorted sets in "
    "single commands (ZUNIONSTORE, DEL on keys with millions of members). Each one blocks "
    "rank-redis for seconds and every score write behind it times out. Suspend the CronJob, "
    "stop the running job and run the chunked variant (ZSCAN batches, UNLINK). Written after "
    "gm-0006.",
    ["leaderboard-service", "rank-redis"],
    ["timeouts", "latency-spike"],
    [step("suspend-cronjob", KUBECTL,
          ["kubectl", "-n", "ranks", "patch", "cronjob", "season-reset", "-p", "{\"spec\":{\"suspend\":true}}"],
          ["kubectl", "-n", "ranks", "get", "cronjob", "season-reset"],
          ["kubectl", "-n", "ranks", "patch", "cronjob", "season-reset", "-p", "{\"spec\":{\"suspend\":false}}"],
          "low", "the weekly reset schedule", 5),
     step("stop-running-job", KUBECTL,
          ["kubectl", "-n", "ranks", "delete", "job", "-l", "app=season-reset"],
          ["kubectl", "-n", "ranks", "get", "jobs", "-l", "app=season-reset"], [],
          "medium", "a reset half done; the chunked job resumes it", 10),
     step("run-chunked-reset", KUBECTL,
          ["kubectl", "-n", "ranks", "create", "job", "--from=cronjob/season-reset-chunked",
           "season-reset-manual-$(DATE)"],
          ["kubectl", "-n", "ranks", "create", "job", "--from=cronjob/season-reset-chunked",
           "season-reset-manual-$(DATE)", "--dry-run=server"],
          ["kubectl", "-n", "ranks", "delete", "job", "season-reset-manual-$(DATE)"],
          "low", "rank-redis load for 20 to 40 minutes", 2400)])

# When each runbook enters the catalog.
CATALOG_START = "2025-03-01 00:00"
RUNBOOK_APPLY = [
    (CATALOG_START, ["release-rollback", "rolling-restart", "rankredis-sentinel-failover",
                     "arena-fleet-previous-build", "chat-relay-staged-restart",
                     "warden-revert-signature-pack", "warden-scale-verifiers",
                     "patch-cdn-shift-traffic", "patch-origin-prewarm", "mm-widen-search-window",
                     "mm-scale-evaluators"]),
    ("2025-03-28 09:00", ["fleet-raise-asg-max"]),
    ("2025-04-08 09:00", ["leaderboard-chunked-reset"]),
    ("2025-04-11 09:00", ["payments-sync-webhook-secret"]),
    ("2025-05-05 09:00", ["playerdb-kill-idle-transactions"]),
    ("2025-05-16 09:00", ["storefront-replay-grants"]),
    ("2025-07-10 09:00", ["rankredis-managed-failover"]),
    ("2025-10-14 09:00", ["fleet-raise-nodepool-limits"]),
]

MIGRATIONS = [
    ("2025-07-15 06:00", {
        "apiVersion": API, "kind": "ArchitectureMigration",
        "metadata": {"name": "rank-redis-sentinel-to-elasticache"},
        "spec": {"targetService": "rank-redis", "migrationDate": "2025-07-15",
                 "oldArch": "Self-hosted Redis 7.0 on the game cluster: one primary and two replicas "
                            "in a StatefulSet, Sentinel for promotion, hourly RDB snapshots",
                 "newArch": "Amazon ElastiCache for Redis 7.1, cluster mode enabled, 3 shards x 2 "
                            "replicas, Multi-AZ with automatic failover, daily snapshot window",
                 "impactedRunbooks": ["rankredis-sentinel-failover"],
                 "impactedFixKeywords": ["SENTINEL FAILOVER", "sentinel failover", "rank-redis-sentinel",
                                         "CONFIG SET save"],
                 "confidenceDeduction": 30}}),
    ("2025-10-20 06:00", {
        "apiVersion": API, "kind": "ArchitectureMigration",
        "metadata": {"name": "arena-nodes-asg-to-karpenter"},
        "spec": {"targetService": "arena-servers", "migrationDate": "2025-10-20",
                 "oldArch": "arena-ds game server nodes in one EC2 Auto Scaling group per region, "
                            "scaled by cluster-autoscaler",
                 "newArch": "Karpenter NodePool arena-ds with a cpu limit per region; the arena-ds "
                            "Auto Scaling groups are deleted",
                 "impactedRunbooks": ["fleet-raise-asg-max"],
                 "impactedFixKeywords": ["update-auto-scaling-group", "max node group size",
                                         "arena-ds Auto Scaling group"],
                 "confidenceDeduction": 28}}),
]

# ---------------------------------------------------------------------------
# Failure families: where the failure really is, and the fix an expert picks.
# A family with conditions picks by the condition that the incident text shows.
# ---------------------------------------------------------------------------
FAMILIES = {
    "RANKSTALL": {"root": "rank-redis",
                  "fix": lambda c, at: "rankredis-managed-failover" if at >= t("2025-07-15 06:00")
                  else "rankredis-sentinel-failover"},
    "SEASONRESET": {"root": "leaderboard-service", "fix": lambda c, at: "leaderboard-chunked-reset"},
    "NODECAP": {"root": "arena-servers",
                "fix": lambda c, at: "fleet-raise-nodepool-limits" if at >= t("2025-10-20 06:00")
                else "fleet-raise-asg-max"},
    "BADBUILD": {"root": "arena-servers", "fix": lambda c, at: "arena-fleet-previous-build"},
    "WEBHOOKSECRET": {"root": "payment-broker", "fix": lambda c, at: "payments-sync-webhook-secret"},
    "GRANTLOOP": {"root": "storefront", "fix": lambda c, at: "storefront-replay-grants"},
    "CHATSTORM": {"root": "chat-relay", "fix": lambda c, at: "chat-relay-staged-restart"},
    "FALSEBAN": {"root": "warden-ac", "fix": lambda c, at: "warden-revert-signature-pack"},
    "HEARTBEAT": {"root": "warden-ac", "fix": lambda c, at: "warden-scale-verifiers"},
    "PATCHSLOW": {"root": "patch-origin",
                  "fix": lambda c, at: {"one-cdn-degraded": "patch-cdn-shift-traffic",
                                        "cold-cache": "patch-origin-prewarm"}[c]},
    "QUEUEWAIT": {"root": "matchmaker",
                  "fix": lambda c, at: {"small-pool": "mm-widen-search-window",
                                        "evaluator-bound": "mm-scale-evaluators"}[c]},
    "XMINHOLD": {"root": "player-pg", "fix": lambda c, at: "playerdb-kill-idle-transactions"},
    "LOBBYREL": {"root": "lobby-api", "fix": lambda c, at: "release-rollback"},
    # one-offs: never recur
    "ONE-DEBUGTOPIC": {"root": "kafka-bus", "fix": lambda c, at: None},
    "ONE-WORDLIST": {"root": "chat-relay", "fix": lambda c, at: "release-rollback"},
    "ONE-CONSOLEMAINT": {"root": "payment-broker", "fix": lambda c, at: None},
    "ONE-CLOCKSKEW": {"root": "matchmaker", "fix": lambda c, at: None},
}

# ---------------------------------------------------------------------------
# Incidents
# ---------------------------------------------------------------------------
INCIDENTS = []

REGION_CLUSTER = {"na-east": "shardfall-prod-use1", "na-west": "shardfall-prod-usw2",
                  "eu-central": "shardfall-prod-euc1", "sa-east": "shardfall-prod-sae1",
                  "oce-syd": "shardfall-prod-apse2", "ap-southeast": "shardfall-prod-apse1"}
TEAM = {"lobby-api": "live-services", "matchmaker": "matchmaking", "fleet-allocator": "game-servers",
        "arena-servers": "game-servers", "profile-service": "live-services", "player-pg": "data-platform",
        "leaderboard-service": "live-services", "rank-redis": "data-platform", "storefront": "commerce",
        "payment-broker": "commerce", "inventory-docs": "data-platform", "chat-relay": "social",
        "warden-ac": "integrity", "patch-origin": "content-delivery", "telemetry-sink": "data-platform",
        "kafka-bus": "data-platform"}


def deploy(id_, revision, minutes):
    return {"id": id_, "revision": revision, "environment": "production", "minutesSinceDeploy": minutes}


def act(text, result, rb=None):
    if rb is not None:
        text = "run runbook %s: %s" % (rb, text)
    return {"action": text, "result": result, "_rb": rb}


def out(minutes, root_cause, summary, rb, actions, by):
    return {"minutes": minutes, "rootCause": root_cause, "summary": summary, "runbook": rb,
            "actions": actions, "confirmedBy": by}


def page(n, at, fam, svc, alert, sev, annotation, expr, value, symptoms=(), region="na-east",
         started=6, deployment=None, cond=None, repage_of=None, outcome=None):
    spec = {"service": svc, "severity": sev,
            "title": "[FIRING:1] %s %s" % (alert, svc),
            "description": annotation}
    if symptoms:
        spec["symptoms"] = list(symptoms)
    spec["errorSignatures"] = ["%s  value=%s" % (expr, value)]
    if deployment:
        spec["deployment"] = deployment
    spec["startedAt"] = iso(t(at) - dt.timedelta(minutes=started))
    spec["labels"] = {"alertname": alert, "source": "alertmanager", "severity": sev,
                      "team": TEAM[svc], "region": region, "cluster": REGION_CLUSTER[region]}
    INCIDENTS.append({"n": n, "at": t(at), "fam": fam, "cond": cond, "repage_of": repage_of,
                      "style": "page", "spec": spec, "outcome": outcome})


def report(n, at, fam, svc, sev, title, description, symptoms, sigs, source, region="na-east",
           started=15, deployment=None, cond=None, repage_of=None, outcome=None, team=None):
    spec = {"service": svc, "severity": sev, "title": title}
    if description:
        spec["description"] = description
    if symptoms:
        spec["symptoms"] = list(symptoms)
    if sigs:
        spec["errorSignatures"] = list(sigs)
    if deployment:
        spec["deployment"] = deployment
    spec["startedAt"] = iso(t(at) - dt.timedelta(minutes=started))
    spec["labels"] = {"source": source, "team": team or TEAM[svc], "region": region}
    INCIDENTS.append({"n": n, "at": t(at), "fam": fam, "cond": cond, "repage_of": repage_of,
                      "style": "report", "spec": spec, "outcome": outcome})


# --- 2025-03 ---------------------------------------------------------------
page(1, "2025-03-08 19:42", "LOBBYREL", "lobby-api", "LobbyApi5xxRate", "critical",
     "lobby-api is returning more than 2% 5xx over 5 minutes",
     'sum(rate(http_server_requests_total{service="lobby-api",code=~"5.."}[5m])) / '
     'sum(rate(http_server_requests_total{service="lobby-api"}[5m])) > 0.02', "0.137",
     deployment=deploy("lobby-api-2.28.0", "2.28.0", 17), started=5,
     outcome=out(38, "lobby-api 2.28.0 dereferenced a nil party leader when an invite targeted a player "
                     "who had just gone offline; every party endpoint panicked and answered 500.",
                 "Seventeen minutes after lobby-api 2.28.0 reached production the 5xx ratio climbed to 14%. "
                 "Pod logs showed panics ending in party.(*Service).Invite. The Helm release was taken back "
                 "to 2.27.4 and errors returned to baseline within four minutes. 2.28.1 shipped the nil check "
                 "with a test for offline invitees two days later.",
                 "release-rollback", [act("lobby-api 2.28.0 back to 2.27.4", "succeeded", "release-rollback")],
                 "d.achterberg"))

page(2, "2025-03-12 20:15", "RANKSTALL", "leaderboard-service", "LeaderboardRedisLatency", "high",
     "Redis ZADD p99 from leaderboard-service above 250ms",
     'histogram_quantile(0.99, sum by (le) (rate(leaderboard_redis_command_seconds_bucket{command="ZADD"}[5m]))) > 0.25',
     "1.92",
     outcome=out(64, "The self-hosted rank-redis primary was at 91% of maxmemory; every hourly RDB fork "
                     "during the evening write peak stalled it for 1 to 3 s and both replicas fell into a "
                     "full-resync loop.",
                 "Score writes from finished matches timed out in bursts of a few seconds. INFO on the "
                 "primary showed latest_fork_usec near 2.5 s and the replicas restarting full syncs. Sentinel "
                 "promoted rank-redis-1 and snapshots were paused on it; write latency dropped to 3 ms. The "
                 "next day weekly boards of past seasons, which had no TTL, were expired to bring memory "
                 "back to 60%.",
                 "rankredis-sentinel-failover",
                 [act("promoted rank-redis-1, paused snapshots", "succeeded", "rankredis-sentinel-failover")],
                 "s.varga"))

page(3, "2025-03-18 21:03", "CHATSTORM", "chat-relay", "ChatRelayPodRestarts", "critical",
     "chat-relay containers restarted more than 5 times in 10 minutes",
     'sum(increase(kube_pod_container_status_restarts_total{namespace="chat",container="chat-relay"}[10m])) > 5',
     "41", symptoms=["oom-kill", "connection-drops"], region="eu-central",
     outcome=out(95, "A node upgrade drained two chat-relay pods at once; their ~180k websocket clients "
                     "reconnected immediately to the remaining pods, which hit their memory limit and were "
                     "OOM-killed in turn: a reconnect storm.",
                 "EU chat went into a disconnect/reconnect loop. The on-call first restarted the whole "
                 "chat-relay StatefulSet, which dropped the connections that were still up and doubled the "
                 "reconnect rate. The storm stopped once new connections were throttled at admission, four "
                 "pods were added and crashed pods were brought back one at a time over 12 minutes.",
                 "chat-relay-staged-restart",
                 [act("rollout restart of chat-relay; all remaining connections dropped and the reconnect "
                      "rate doubled", "failed", "rolling-restart"),
                  act("admission throttled to 1500/s, 4 relays added, crashed pods restarted one by one",
                      "succeeded", "chat-relay-staged-restart")],
                 "l.oduya"))

report(4, "2025-03-22 20:31", "NODECAP", "fleet-allocator", "high",
       "Ranked allocations failing in NA East, players stuck on 'Finding server'",
       "Since about 20:10 UTC fleet-allocator answers UnAllocated for roughly a third of ranked requests. "
       "The match-found screen times out after 60 s and players land back in the queue. About 300 "
       "GameServers on arena-ranked sit in Scheduled/Pending and the kube events say FailedScheduling. "
       "Saturday evening peak, concurrent players 15% above last week. No game server build went out today.",
       ["allocation-failures", "scheduling-failures", "queue-backlog"],
       ["0/184 nodes are available: 184 Insufficient cpu. preemption: 0/184 nodes are available",
        "cluster-autoscaler: scale-up: max node group size reached (arena-ds-na-east)",
        "allocation result=UnAllocated fleet=arena-ranked"],
       "oncall", started=21,
       outcome=out(52, "The arena-ds-na-east Auto Scaling group reached its max size of 184 nodes during a "
                       "Saturday peak; cluster-autoscaler could not add nodes, new GameServers stayed Pending "
                       "and the ready buffer emptied.",
                   "Allocation failures matched the moment the node group hit 184/184. The on-call raised the "
                   "group's max size to 240 in the AWS console; nodes joined within five minutes and the "
                   "Pending GameServers became Ready. The steps were written up as fleet-raise-asg-max.",
                   None, [act("raised arena-ds-na-east max size from 184 to 240 in the AWS console", "succeeded")],
                   "k.mbeki"))

report(5, "2025-03-27 16:40", "QUEUEWAIT", "matchmaker", "medium",
       "OCE ranked queue times 8-10 min since region launch",
       "Support is getting tickets from the new Oceania region: ranked 5v5 waits are 8 to 10 minutes between "
       "03:00 and 05:00 local (16:00-18:00 UTC). Only about 700 players are queued region-wide at that time. "
       "mm-evaluator pods are nearly idle (CPU 8%), so the matchmaker isn't slow; it just can't find ten "
       "people inside the default MMR band and 60 ms ping limit.",
       ["queue-backlog"],
       ["mm-director: cycle done queue=ranked-5v5 region=oce-syd tickets=712 proposals=3 matched=30 oldest_wait=611s"],
       "support", region="oce-syd", started=40, cond="small-pool",
       outcome=out(70, "Low population: off-peak, the OCE ranked pool was too small for the default MMR band "
                       "(+/-100) and the 60 ms ping cap.",
                   "Waits were long because few players were searching, not because the matchmaker was slow. "
                   "The ranked-5v5 window for oce-syd was set to grow after 45 s in steps of 150 MMR with a "
                   "140 ms ping cap; p95 wait fell from 10 to about 2 minutes with no visible change in "
                   "match quality complaints.",
                   "mm-widen-search-window",
                   [act("ranked-5v5 oce-syd: expand after 45s, step 150, ping 140 ms", "succeeded",
                        "mm-widen-search-window")],
                   "r.castellanos"))

report(6, "2025-03-31 00:09", "SEASONRESET", "leaderboard-service", "high",
       "Leaderboards timing out right after midnight UTC",
       "Started at 00:00 on the dot. Score submits from arena-servers fail with timeouts and the leaderboard "
       "screen in the client just spins. rank-redis looks healthy in Grafana (memory 58%, replicas in sync), "
       "but SLOWLOG is full of ZUNIONSTORE and DEL on season keys taking 3 to 6 seconds each. The "
       "season-reset CronJob is running; this is the first week with the new per-mode boards.",
       ["timeouts", "latency-spike"],
       ["SLOWLOG: ZUNIONSTORE lb:{s1}:weekly:all 4 lb:{s1}:weekly:ranked ... took 5843 ms",
        "leaderboard-service: context deadline exceeded (redis ZADD lb:{s1}:daily:ranked)"],
       "oncall", started=9,
       outcome=out(58, "The weekly season-reset job merged and deleted multi-million-member sorted sets in "
                       "single ZUNIONSTORE and DEL commands; each blocked rank-redis for seconds, so score "
                       "writes queued behind them timed out.",
                   "Redis itself was healthy; the per-mode boards added that week made the Monday reset four "
                   "times bigger. The on-call suspended the CronJob, deleted the running job and ran the reset "
                   "by hand with a script using ZSCAN batches of 5k and UNLINK. Latency was normal within two "
                   "minutes of stopping the job. The chunked variant became a second CronJob and the "
                   "procedure became leaderboard-chunked-reset.",
                   None, [act("suspended season-reset, deleted the job, ran the reset in ZSCAN batches with UNLINK",
                              "succeeded")],
                   "s.varga"))

# --- 2025-04 ---------------------------------------------------------------
report(7, "2025-04-03 14:22", "WEBHOOKSECRET", "payment-broker", "high",
       "Players charged for Flux bundles but nothing delivered",
       "Escalated from player support: 212 tickets in the last 2 hours, all card purchases through Tillpoint. "
       "The charges show as captured on the Tillpoint dashboard, but players never get the Flux. Console "
       "store purchases are fine. payment-broker logs are full of webhook verification errors. Nothing has "
       "been deployed on payment-broker since last Tuesday.",
       ["payment-failures", "missing-items"],
       ['webhook verify failed provider=tillpoint err="signature mismatch" endpoint=/hooks/tillpoint',
        "tillpoint dashboard: webhook delivery failed, HTTP 401, retry 6 of 8"],
       "support", started=95,
       outcome=out(81, "Tillpoint rotated the webhook signing secret of our account (the notice went to a "
                       "retired mail alias); payment-broker still verified with the old secret from Vault and "
                       "answered every webhook with 401.",
                   "Charges were captured but orders stayed unconfirmed, so no Flux was granted. The on-call "
                   "copied the new secret from the Tillpoint dashboard into Vault, restarted payment-broker and "
                   "had Tillpoint redeliver the failed webhooks; all 1,940 orders were granted within 20 "
                   "minutes. Written up as payments-sync-webhook-secret; the notice address was fixed.",
                   None, [act("copied the new Tillpoint secret into Vault, restarted payment-broker, redelivered "
                              "failed webhooks from the Tillpoint dashboard", "succeeded")],
                   "m.ferreira"))

page(8, "2025-04-10 18:55", "BADBUILD", "fleet-allocator", "FleetAllocationFailures", "critical",
     "fleet-allocator returns UnAllocated for more than 2 allocations/s on arena-ranked",
     'sum(rate(allocator_allocations_total{result="UnAllocated",fleet="arena-ranked"}[5m])) > 2', "41.8",
     symptoms=["allocation-failures", "pod-restarts"], deployment=deploy("arena-ds-7.3.0", "7.3.0", 24),
     outcome=out(72, "Dedicated-server build 7.3.0 ran out of memory while loading the new map Saltworks under "
                     "the fleet's 3 GiB limit, before calling SDK Ready(); GameServers cycled to Unhealthy and "
                     "the ready buffer drained while nodes were half empty.",
                 "Same alert as a capacity shortage, different cause. The on-call first raised the node "
                 "group's max size; 20 new nodes came up empty and allocations kept failing because no server "
                 "ever became Ready. Setting arena-ranked back to build 7.2.4 refilled the buffer in eight "
                 "minutes. 7.3.1 raised the memory limit and streamed the map.",
                 "arena-fleet-previous-build",
                 [act("max size 240 to 280; new nodes stayed empty, allocations still failed", "failed",
                      "fleet-raise-asg-max"),
                  act("arena-ranked set back to 7.2.4", "succeeded", "arena-fleet-previous-build")],
                 "k.mbeki"))

report(9, "2025-04-15 17:05", "PATCHSLOW", "patch-origin", "high",
       "Patch 1.4 downloads crawling in Brazil only",
       "Patch 1.4 went live at 16:00 UTC. Brazilian players report 300-600 KB/s while every other region "
       "downloads at normal speed. CDN dashboards show the edge hit ratio for the patch at 96% globally and "
       "origin egress is low. Split by CDN for sa-east: requests served by CDN-B are fine, the ones served by "
       "CDN-A from its Sao Paulo POPs are slow. CDN-A's status page says 'degraded performance in South "
       "America'.",
       ["slow-downloads"],
       ["launcher: chunk 0413/2210 download 412 KB/s cdn=cdn-a pop=GRU",
        "cdn-a status: Degraded performance - South America (investigating)"],
       "slack", region="sa-east", started=50, cond="one-cdn-degraded",
       outcome=out(46, "CDN-A had a capacity problem in its Sao Paulo POPs; the patch itself was cached fine "
                       "on both CDNs.",
                   "Only sa-east traffic on CDN-A was slow. The sa-east steering weights were set to 90% CDN-B "
                   "and 10% CDN-A; with a 60 s DNS TTL download speeds were back to normal in about ten "
                   "minutes. Weights were restored the next morning after CDN-A closed its incident.",
                   "patch-cdn-shift-traffic",
                   [act("sa-east weights cdn-b=90, cdn-a=10", "succeeded", "patch-cdn-shift-traffic")],
                   "j.salo"))

report(10, "2025-04-19 13:30", "FALSEBAN", "warden-ac", "critical",
       "Wave of anti-cheat bans after this morning's detection update",
       "Community team here. Discord and Reddit are on fire: hundreds of players banned mid-match in the "
       "last 40 minutes. Every ban record in the admin tool carries detection SIG-7781 'unsigned module "
       "injected'. Everyone we've looked at runs the StreamDock overlay, which is popular with streamers and "
       "updated yesterday. These are real ban records, not just kicks.",
       ["player-kicks", "false-positives"],
       ["warden: detection SIG-7781 module=sdk_overlay64.dll verdict=ban",
        "arena: player removed reason=anticheat_detection code=WARDEN-E1042"],
       "slack", deployment=deploy("warden-sigpack-2025.04.19-1", "2025.04.19-1", 48), started=40,
       team="community",
       outcome=out(55, "Signature pack 2025.04.19-1 matched the StreamDock overlay module updated the day "
                       "before as an injected cheat module (SIG-7781).",
                   "3,412 players were kicked and banned within an hour of the pack going live. Pack "
                   "2025.04.18-2 was activated again and every ban issued by SIG-7781 was voided; affected "
                   "players received an apology grant. SIG-7781 was rewritten to require a code-signing "
                   "mismatch.",
                   "warden-revert-signature-pack",
                   [act("activated 2025.04.18-2, voided 3,412 bans", "succeeded", "warden-revert-signature-pack")],
                   "a.holm"))

report(11, "2025-04-24 10:48", "XMINHOLD", "profile-service", "high",
       "Profile loads slow, p99 4s, getting worse over the day",
       "Player profile fetches (the lobby landing screen) have been creeping up since this morning: p99 380 "
       "ms at 06:00, 4.1 s now. Not a deploy, the last profile-service release was 9 days ago, and CPU on "
       "player-pg is only 35%. What stands out: n_dead_tup on profiles.player_profile is 61M and autovacuum "
       "runs but removes nothing. pg_stat_activity shows a bi_export session 'idle in transaction' since "
       "03:12.",
       ["latency-spike", "db-bloat"],
       ['automatic vacuum of table "players.profiles.player_profile": tuples: 0 removed, 61204113 remain, '
        '60980022 are dead but not yet removable, oldest xmin: 1893004417',
        "bi_export | idle in transaction | xact_start 2025-04-24 03:12:07+00"],
       "oncall", started=30,
       outcome=out(74, "A nightly BI export opened a transaction at 03:12 and its client hung without closing "
                       "it; the open snapshot pinned the oldest xmin, so autovacuum could not remove dead rows "
                       "and player_profile bloated.",
                   "The on-call terminated the bi_export session, autovacuum then removed 60M dead tuples "
                   "within 40 minutes, and a manual VACUUM ANALYZE on player_profile brought p99 back to 350 "
                   "ms. idle_in_transaction_session_timeout of 5 minutes was set on the bi_export role. "
                   "Written up as playerdb-kill-idle-transactions.",
                   None, [act("pg_terminate_backend on the bi_export session, VACUUM ANALYZE player_profile, "
                              "role timeout 5min", "succeeded")],
                   "p.quenneville"))

# --- 2025-05 ---------------------------------------------------------------
report(12, "2025-05-02 21:20", "RANKSTALL", "leaderboard-service", "high",
       "Score submits timing out again - leaderboard-service 1.19 went out half an hour ago",
       "Arena servers are logging timeouts posting end-of-match scores, leaderboard-service p99 around 2 s. "
       "1.19.0 (the friends-only board) shipped at 20:45, so that was the first suspect. But rank-redis INFO "
       "says used_memory is at 93% of maxmemory, rdb_bgsave_in_progress:1, latest_fork_usec 2.8 s, and "
       "replica rank-redis-2 logs 'MASTER <-> REPLICA sync started' every few minutes.",
       ["timeouts", "latency-spike", "replication-lag"],
       ["leaderboard-service: redis: i/o timeout (ZADD lb:{s1}:daily:ranked)",
        "rank-redis-2: MASTER <-> REPLICA sync: receiving 6.1 GB from master to disk",
        "latest_fork_usec:2803311"],
       "oncall", deployment=deploy("leaderboard-service-1.19.0", "1.19.0", 35), started=22,
       outcome=out(88, "The rank-redis primary was at 93% of maxmemory again; each RDB fork stalled it and the "
                       "replicas looped in full resync. leaderboard-service 1.19.0 was unrelated.",
                   "Because 1.19.0 had just shipped, the release was taken back to 1.18.3 first; timeouts "
                   "continued unchanged for 15 minutes. Sentinel then promoted rank-redis-2 and snapshots were "
                   "paused on it; latency recovered at once. 1.19.0 went out again the next day without "
                   "trouble. Memory headroom was raised by moving the instance to a larger node class.",
                   "rankredis-sentinel-failover",
                   [act("leaderboard-service 1.19.0 back to 1.18.3; timeouts unchanged", "failed", "release-rollback"),
                    act("promoted rank-redis-2, paused snapshots", "succeeded", "rankredis-sentinel-failover")],
                   "t.nakashima"))

report(13, "2025-05-06 12:10", "LOBBYREL", "profile-service", "high",
       "profile-service CPU tripled, no profile-service change",
       "profile-service pods went from 30% to 95% CPU around 11:45 and the HPA is at max. We haven't shipped "
       "profile-service since last week. Request rate by caller shows lobby-api sending about 14x more "
       "GetProfile calls than yesterday, and lobby-api 2.31.0 (friends list redesign) went out at 11:44. "
       "Looks like the friends list fetches each friend's profile one call at a time.",
       ["cpu-saturation", "latency-spike"],
       ["profile-service: grpc GetProfile rate by caller: lobby-api 41.2k/s (yesterday 2.9k/s)",
        "lobby-api: friends.(*Handler).List made 212 GetProfile calls for one request"],
       "slack", deployment=deploy("lobby-api-2.31.0", "2.31.0", 26), started=25,
       outcome=out(41, "lobby-api 2.31.0 loaded friend profiles one GetProfile call per friend (N+1) instead of "
                       "one batch call, multiplying load on profile-service.",
                   "profile-service was a victim: no change of its own, CPU saturated by lobby-api's new "
                   "friends list. lobby-api was taken back to 2.30.2 and profile-service CPU fell to 30% within "
                   "five minutes. 2.31.1 restored the BatchGetProfiles call.",
                   "release-rollback",
                   [act("lobby-api 2.31.0 back to 2.30.2", "succeeded", "release-rollback")],
                   "d.achterberg"))

report(14, "2025-05-09 15:35", "GRANTLOOP", "storefront", "high",
       "Store purchases not delivering items - Tillpoint webhooks look fine though",
       "Support escalation, about 150 tickets: paid, no skin or bundle. First guess was the Tillpoint secret "
       "like last month, but payment-broker shows webhooks answered 200 and the orders are PAID. The gap is "
       "after that: consumer group store-granter on store.grants has 31k lag and keeps rebalancing, and the "
       "granter logs a CommitFailedException every couple of minutes. inventory-docs write latency p99 is "
       "around 900 ms (normally 40).",
       ["missing-items", "consumer-lag"],
       ["org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the group "
        "has already rebalanced and assigned the partitions to another member.",
        "store-granter: batch of 500 grants took 412s (max.poll.interval.ms=300000)",
        "inventory-docs slow op: update inventories.items 870ms"],
       "support", started=70,
       outcome=out(96, "inventory-docs writes slowed while an index build on inventories.items ran in the "
                       "foreground at peak; store-granter batches of 500 exceeded max.poll.interval.ms, commits "
                       "failed and the group rebalanced in a loop without making progress.",
                   "Payments were confirmed; grants were stuck. The on-call first synced the Tillpoint secret "
                   "as in April: it was already current and nothing changed. Restarting the granters with "
                   "MAX_POLL_RECORDS=50 stopped the rebalance loop, and a reconcile of paid orders without a "
                   "grant delivered the 4,300 missing items. The index build was moved to a rolling build. "
                   "Written up as storefront-replay-grants.",
                   None,
                   [act("secret already current, no effect", "failed", "payments-sync-webhook-secret"),
                    act("restarted store-granter with MAX_POLL_RECORDS=50, grantctl reconcile for paid orders",
                        "succeeded")],
                   "m.ferreira"))

page(15, "2025-05-14 19:02", "QUEUEWAIT", "matchmaker", "MatchmakerQueueTimeP95", "critical",
     "ranked-5v5 p95 wait above 3 min with 61k tickets in the pool",
     'histogram_quantile(0.95, sum by (le) (rate(mm_ticket_wait_seconds_bucket{queue="ranked-5v5",region="na-east"}[10m]))) > 180',
     "547", symptoms=["queue-backlog", "cpu-saturation"], cond="evaluator-bound", started=12,
     outcome=out(84, "Season 2 launch put 61k tickets in the NA ranked pool; mm-evaluator ran at its CPU limit, "
                     "evaluation cycles overran the 2 s deadline and their proposals were dropped.",
                 "The on-call applied the change that had fixed the OCE queues in March and let the search "
                 "window grow sooner. Candidate sets grew, cycles went from 2.4 s to 7 s and waits got longer. "
                 "The window was reset, mm-evaluator went from 8 to 20 replicas and candidates per cycle were "
                 "capped at 400; p95 wait fell to 70 s.",
                 "mm-scale-evaluators",
                 [act("ranked-5v5 na-east window widened; cycles slowed from 2.4 s to 7 s, waits grew",
                      "failed", "mm-widen-search-window"),
                  act("mm-evaluator 8 to 20 replicas, max 400 candidates", "succeeded", "mm-scale-evaluators")],
                 "r.castellanos"))

page(16, "2025-05-19 00:06", "SEASONRESET", "leaderboard-service", "LeaderboardRedisLatency", "high",
     "Redis ZUNIONSTORE p99 from leaderboard-service above 250ms",
     'histogram_quantile(0.99, sum by (le) (rate(leaderboard_redis_command_seconds_bucket{command="ZUNIONSTORE"}[5m]))) > 0.25',
     "4.71", started=4,
     outcome=out(47, "The season-reset CronJob still ran the single-command merge for the monthly boards; "
                     "ZUNIONSTORE on 8M-member sets blocked rank-redis for seconds at a time.",
                 "Only the weekly boards had been moved to the chunked job in April; the monthly boards still "
                 "used the old code path. The on-call assumed a stalled primary and promoted a replica through "
                 "Sentinel; the job retried and blocked the new primary the same way. Suspending the CronJob "
                 "and running the chunked reset cleared it in 30 minutes. The monthly path was moved to the "
                 "chunked job.",
                 "leaderboard-chunked-reset",
                 [act("promoted rank-redis-0; the job retried and blocked the new primary", "failed",
                      "rankredis-sentinel-failover"),
                  act("CronJob suspended, chunked reset run", "succeeded", "leaderboard-chunked-reset")],
                 "t.nakashima"))

page(17, "2025-05-24 20:44", "NODECAP", "fleet-allocator", "FleetAllocationFailures", "high",
     "fleet-allocator returns UnAllocated for more than 2 allocations/s on arena-ranked",
     'sum(rate(allocator_allocations_total{result="UnAllocated",fleet="arena-ranked"}[5m])) > 2', "17.6",
     region="eu-central", started=8,
     outcome=out(39, "The arena-ds-eu-central Auto Scaling group was at its max of 120 nodes at the Saturday "
                     "peak; GameServers stayed Pending.",
                 "cluster-autoscaler-status showed arena-ds-eu-central at 120/120 and the Pending GameServers "
                 "had FailedScheduling for cpu. Max size was raised to 160; 22 nodes joined and allocation "
                 "failures stopped within seven minutes.",
                 "fleet-raise-asg-max",
                 [act("arena-ds-eu-central max 120 to 160", "succeeded", "fleet-raise-asg-max")],
                 "k.mbeki"))

page(18, "2025-05-29 18:20", "HEARTBEAT", "arena-servers", "ArenaKickRate", "critical",
     "Anti-cheat heartbeat timeouts are removing players from matches",
     'sum(rate(arena_player_removed_total{reason="anticheat_heartbeat_timeout"}[5m])) > 3', "64.9",
     symptoms=["player-kicks"], started=7,
     outcome=out(63, "warden-verifier (12 fixed replicas, 2 CPU each) saturated at a Thursday concurrency "
                     "record; the heartbeat verification queue reached 40 s, past the 20 s grace, so game "
                     "servers removed players. No bans were issued.",
                 "A detection pack had gone out that morning, so it was suspected first and the previous pack "
                 "was activated; kicks continued at the same rate. warden-verifier was then scaled from 12 to "
                 "30 replicas and the heartbeat grace raised to 45 s; the queue drained in six minutes. An HPA "
                 "on queue depth was added afterwards.",
                 "warden-scale-verifiers",
                 [act("activated the previous pack; kicks unchanged", "failed", "warden-revert-signature-pack"),
                  act("warden-verifier 12 to 30, grace 45 s", "succeeded", "warden-scale-verifiers")],
                 "a.holm"))

# --- 2025-06 ---------------------------------------------------------------
report(19, "2025-06-05 20:50", "CHATSTORM", "chat-relay", "critical",
       "Chat dead during the Spring Cup finals",
       "Party and global chat are in a disconnect/reconnect loop for everyone in NA since 20:40. 9 of 14 "
       "chat-relay pods have been OOMKilled at least once in 10 minutes. Connection attempts are at 60k/s "
       "against a normal 3k/s. It started right after the final, when viewers piled into #springcup.",
       ["connection-drops", "oom-kill", "pod-restarts"],
       ["chat-relay-7 OOMKilled (limit 6Gi)",
        "chat-relay: accept rate 61204/s, active 412k, heap 5.8Gi",
        "client: ws closed 1006, reconnecting in 0ms"],
       "oncall", started=10,
       outcome=out(66, "Fan-out of the #springcup channel pushed one chat-relay pod over its memory limit; its "
                       "clients reconnected at once to the others, which were OOM-killed in turn.",
                   "Same reconnect storm as in March, this time started by one hot channel. Admission was "
                   "throttled to 1500 new connections/s, six relays were added and crashed pods came back one "
                   "at a time; chat was stable after 18 minutes. Channel fan-out now goes through a separate "
                   "broadcaster.",
                   "chat-relay-staged-restart",
                   [act("admission 1500/s, +6 relays, crashed pods one by one", "succeeded",
                        "chat-relay-staged-restart")],
                   "l.oduya"))

report(20, "2025-06-08 03:15", "ONE-DEBUGTOPIC", "telemetry-sink", "medium",
       "telemetry-sink lag climbing overnight, producers seeing errors",
       "telemetry-sink consumer lag went from 0 to 9M over three hours and the live dashboards are stale. It "
       "isn't the sink itself: arena-servers' telemetry producers also log NOT_ENOUGH_REPLICAS, and broker "
       "kafka-bus-2 is at 100% disk. Topic debug.netcode was created last week with retention.ms=-1.",
       ["consumer-lag", "disk-pressure"],
       ["org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are "
        "fewer in-sync replicas than required.",
        "kafka-bus-2: java.io.IOException: No space left on device",
        "topic debug.netcode retention.ms=-1 size=3.9TB"],
       "oncall", started=35,
       outcome=out(128, "A debug topic (debug.netcode) created with infinite retention filled the disks of two "
                        "kafka-bus brokers; partitions lost in-sync replicas and producers with acks=all were "
                        "rejected.",
                   "After checking with the netcode team, retention on debug.netcode was set to 6 hours and the "
                   "topic was deleted the next morning. kafka-bus-2 was restarted once its disk had room, ISR "
                   "recovered and telemetry-sink worked off the 9M backlog in two hours. Topic creation now "
                   "requires a finite retention.",
                   None,
                   [act("retention.ms=21600000 on debug.netcode, restarted kafka-bus-2 after space was freed",
                        "succeeded")],
                   "p.quenneville"))

page(21, "2025-06-11 11:30", "WEBHOOKSECRET", "payment-broker", "PaymentWebhookRejects", "high",
     "payment-broker rejects more than 0.5 webhooks/s",
     'sum by (provider) (rate(paybroker_webhook_requests_total{status="rejected"}[5m])) > 0.5', "9.3",
     started=6,
     outcome=out(36, "Tillpoint's scheduled 60-day rotation changed the webhook signing secret; payment-broker "
                     "still held the old one.",
                 "All rejected webhooks were Tillpoint's, with signature mismatches. The secret was synced "
                 "from the Tillpoint API into Vault, payment-broker restarted and 410 failed webhooks "
                 "redelivered; every order was granted.",
                 "payments-sync-webhook-secret",
                 [act("tillpoint secret synced, 410 webhooks redelivered", "succeeded", "payments-sync-webhook-secret")],
                 "m.ferreira"))

page(22, "2025-06-17 17:10", "PATCHSLOW", "patch-origin", "PatchOriginEgressSaturated", "critical",
     "patch-origin egress above 90% of its 10 Gbps for 10 minutes",
     "sum(rate(patch_origin_egress_bytes_total[5m])) * 8 / 10e9 > 0.9", "0.99",
     symptoms=["slow-downloads", "cache-miss"], cond="cold-cache", started=14,
     outcome=out(92, "Patch 1.5 (38 GB of new chunks) went live without being pushed to the CDN shield tiers; "
                     "both CDNs missed at the same time (hit ratio 38%) and the origin's 10 Gbps saturated, so "
                     "downloads were slow in every region.",
                 "Following the April fix, the on-call moved NA and EU steering weight to CDN-B. CDN-B was just "
                 "as cold, its misses added origin load and speeds dropped further. Weights were restored, "
                 "patch-origin went from 6 to 16 replicas and the patch was pushed into both CDNs' shield "
                 "tiers; the hit ratio reached 90% after 35 minutes and speeds recovered.",
                 "patch-origin-prewarm",
                 [act("NA and EU weights moved to cdn-b; origin load rose", "failed", "patch-cdn-shift-traffic"),
                  act("patch-origin 6 to 16, patch 1.5 pushed to both shields", "succeeded", "patch-origin-prewarm")],
                 "j.salo"))

page(23, "2025-06-20 22:05", "RANKSTALL", "rank-redis", "RedisReplicaLinkDown", "high",
     "rank-redis primary has fewer than 2 connected replicas",
     'min(redis_connected_slaves{service="rank-redis",role="master"}) < 2', "0", started=9,
     outcome=out(44, "The rank-redis primary stalled on its RDB fork near maxmemory; both replicas dropped into "
                     "full resync and the primary briefly had no connected replicas.",
                 "Leaderboard writes were slow but still succeeding when the alert fired. Sentinel promoted "
                 "rank-redis-1 and snapshots were paused; replicas resynced from the new primary in four "
                 "minutes. The ElastiCache move planned for July was confirmed.",
                 "rankredis-sentinel-failover",
                 [act("promoted rank-redis-1, paused snapshots", "succeeded", "rankredis-sentinel-failover")],
                 "s.varga"))

report(24, "2025-06-28 19:12", "BADBUILD", "arena-servers", "critical",
       "New server build: GameServers going Unhealthy in a loop",
       "7.5.0 hit the casual and ranked fleets at 18:50. Since then GameServers start, sit in Scheduled for "
       "about 30 s and flip to Unhealthy; the fleet keeps replacing them. Allocation success is 55%. Nodes "
       "are at 40% CPU with plenty of room and cluster-autoscaler is idle, so it's not capacity. The SDK "
       "sidecar says the health pings never arrive.",
       ["allocation-failures", "pod-restarts", "crashloop"],
       ["sdk-sidecar: no Health() ping for 30s, marking GameServer Unhealthy",
        "arena-ds: FATAL asset bundle mismatch: expected maps_v75.pak hash 9c1e04, got 41af7b"],
       "oncall", deployment=deploy("arena-ds-7.5.0", "7.5.0", 19), started=18,
       outcome=out(49, "Build 7.5.0 was packaged with the previous map bundle; the server aborted on the hash "
                       "check before its first health ping, so every GameServer went Unhealthy.",
                   "Capacity was fine. Both fleets were set back to 7.4.2 and the ready buffer refilled within "
                   "ten minutes. The packaging step now verifies bundle hashes before upload.",
                   "arena-fleet-previous-build",
                   [act("arena-casual and arena-ranked back to 7.4.2", "succeeded", "arena-fleet-previous-build")],
                   "k.mbeki"))

# --- 2025-07 ---------------------------------------------------------------
page(25, "2025-07-02 16:45", "FALSEBAN", "arena-servers", "ArenaKickRate", "critical",
     "Anti-cheat detections are removing players from matches",
     'sum(rate(arena_player_removed_total{reason="anticheat_detection"}[5m])) > 3', "22.4",
     symptoms=["player-kicks", "false-positives"],
     deployment=deploy("warden-sigpack-2025.07.02-1", "2025.07.02-1", 31), started=9,
     outcome=out(51, "Signature pack 2025.07.02-1 flagged the shader-cache helper of a new GPU driver as an "
                     "injected module.",
                 "Kicks came with real bans, all from one new detection in the pack that had gone live 30 "
                 "minutes earlier. The previous pack was activated and 1,108 bans voided.",
                 "warden-revert-signature-pack",
                 [act("activated 2025.06.24-1, voided 1,108 bans", "succeeded", "warden-revert-signature-pack")],
                 "a.holm"))

report(26, "2025-07-07 00:11", "SEASONRESET", "leaderboard-service", "critical",
       "Season 3 rollover: leaderboards unavailable",
       "Season 3 'Emberfall' rolled over at 00:00 UTC and every board times out, like in March and May. The "
       "reset job is halfway through archiving season 2: SLOWLOG shows DEL lb:{s2}:season:all taking 7.9 s "
       "(9.8M members). rank-redis memory and replication look normal.",
       ["timeouts", "latency-spike"],
       ["SLOWLOG: DEL lb:{s2}:season:all took 7912 ms",
        "arena-servers: POST /v1/scores: 504 upstream timeout (leaderboard-service)"],
       "oncall", started=11,
       outcome=out(42, "The season archive step of season-reset still deleted whole season sets with a single "
                       "DEL; each blocked rank-redis for up to 8 s.",
                   "Only the weekly and monthly paths were chunked; the end-of-season archive had never run "
                   "since. The CronJob was suspended and the chunked job finished the archive with UNLINK in "
                   "25 minutes. Chart 1.21 made every path use the chunked job.",
                   "leaderboard-chunked-reset",
                   [act("CronJob suspended, chunked archive run", "succeeded", "leaderboard-chunked-reset")],
                   "s.varga"))

report(27, "2025-07-11 09:40", "XMINHOLD", "profile-service", "high",
       "profile-service p99 climbing, dead tuples piling up again",
       "Short one: profile p99 2.3 s and rising, player_profile dead tuples 38M, and the oldest transaction in "
       "pg_stat_activity is a psql session from the support tooling role support_ro, idle in transaction for "
       "5 hours. Nothing deployed.",
       ["latency-spike", "db-bloat"],
       ["support_ro | psql | idle in transaction | 05:12:44",
        "autovacuum: tuples: 0 removed, 38002115 are dead but not yet removable"],
       "slack", started=25,
       outcome=out(33, "A support engineer's psql session under support_ro was left idle in transaction for five "
                       "hours and pinned the oldest xmin.",
                   "The session was terminated, player_profile vacuumed and p99 returned to 300 ms. support_ro "
                   "got the same 5-minute idle-in-transaction timeout as bi_export.",
                   "playerdb-kill-idle-transactions",
                   [act("terminated the support_ro session, vacuumed, role timeout", "succeeded",
                        "playerdb-kill-idle-transactions")],
                   "p.quenneville"))

report(28, "2025-07-19 20:25", "QUEUEWAIT", "matchmaker", "high",
       "EU ranked queues 6+ minutes on Saturday night",
       "Peak EU evening with 48k tickets in ranked-5v5. mm-evaluator pods are pinned at their CPU limit and "
       "the logs are full of 'evaluation deadline exceeded'; about a third of the cycles produce no proposals. "
       "Population is not the problem, there are plenty of players at every MMR.",
       ["queue-backlog", "cpu-saturation"],
       ["mm-evaluator: evaluation deadline exceeded after 2000ms (candidates=9420)",
        "mm-director: cycle done queue=ranked-5v5 region=eu-central tickets=48113 proposals=0"],
       "oncall", region="eu-central", cond="evaluator-bound", started=30,
       outcome=out(37, "The EU evaluator deployment was still at its pre-season size; with 48k tickets the "
                       "evaluation cycles overran their deadline.",
                   "mm-evaluator in eu-central went from 8 to 18 replicas with a 400-candidate cap; p95 wait "
                   "dropped from 6 minutes to 80 s. The search window was left alone.",
                   "mm-scale-evaluators",
                   [act("eu-central mm-evaluator 8 to 18, max 400 candidates", "succeeded", "mm-scale-evaluators")],
                   "r.castellanos"))

page(29, "2025-07-24 18:00", "GRANTLOOP", "storefront", "StoreGrantConsumerLag", "high",
     "store-granter is more than 5000 messages behind on store.grants",
     'sum(kafka_consumergroup_lag{group="store-granter",topic="store.grants"}) > 5000', "48211",
     symptoms=["consumer-lag", "missing-items"], started=10,
     outcome=out(54, "A summer-sale bundle granted 30 items per order into one inventory document; writes to "
                     "inventory-docs slowed, store-granter batches overran max.poll.interval.ms and the group "
                     "looped in rebalances.",
                 "Webhooks and payments were healthy. The granters were restarted with 50-record polls and "
                 "paid orders without grants were reconciled; lag was gone in 20 minutes.",
                 "storefront-replay-grants",
                 [act("MAX_POLL_RECORDS=50, reconciled 2,870 orders", "succeeded", "storefront-replay-grants")],
                 "m.ferreira"))

page(30, "2025-07-29 15:18", "LOBBYREL", "lobby-api", "LobbyApiLatencyP99", "high",
     "lobby-api p99 above 1.5 s for 10 minutes",
     'histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{service="lobby-api"}[5m]))) > 1.5',
     "6.8", deployment=deploy("lobby-api-2.36.0", "2.36.0", 22), started=10,
     outcome=out(46, "lobby-api 2.36.0 created a new HTTP client for every storefront call and never closed "
                     "response bodies; sockets leaked until calls waited on new connections.",
                 "Store tab and login were slow; storefront itself answered in 20 ms. lobby-api was taken back "
                 "to 2.35.1 and p99 fell to 300 ms. 2.36.1 reuses one client.",
                 "release-rollback",
                 [act("lobby-api 2.36.0 back to 2.35.1", "succeeded", "release-rollback")],
                 "d.achterberg"))

# --- 2025-08 ---------------------------------------------------------------
report(31, "2025-08-03 19:30", "ONE-WORDLIST", "chat-relay", "high",
       "Nobody can say 'Emberfall' in chat",
       "Since the chat-relay release this afternoon, any message containing the new season's name (Emberfall, "
       "ember, embers) is silently dropped, and players think chat is broken. Connections are fine, no "
       "restarts, no OOM: this isn't the reconnect thing. 4.12.0 shipped the new word list for the season.",
       ["error-rate"],
       ['chat-relay: message dropped rule=wordlist-v41 match="ember" channel=global:en'],
       "slack", deployment=deploy("chat-relay-4.12.0", "4.12.0", 70), started=60,
       outcome=out(35, "chat-relay 4.12.0 shipped word list v41 with a substring rule meant for a slur variant "
                       "that also matched 'ember'.",
                   "Messages were dropped by the filter, not lost in transport. chat-relay was taken back to "
                   "4.11.3 and messages flowed again; 4.12.1 made the rule whole-word.",
                   "release-rollback",
                   [act("chat-relay 4.12.0 back to 4.11.3", "succeeded", "release-rollback")],
                   "l.oduya"))

report(32, "2025-08-09 21:10", "RANKSTALL", "leaderboard-service", "high",
       "Leaderboard writes timing out, first time since the ElastiCache move",
       "Score submits time out in bursts since 21:00, p99 2.6 s. rank-redis has been on ElastiCache since "
       "mid July. CloudWatch for shard 0001: primary EngineCPUUtilization 97%, SwapUsage 1.1 GB, "
       "DatabaseMemoryUsagePercentage 94%, and a snapshot has been running since 20:58; the snapshot window "
       "was left at 21:00 UTC. The replicas' ReplicationLag is 30 to 40 s.",
       ["timeouts", "replication-lag", "latency-spike"],
       ["leaderboard-service: redis: i/o timeout (ZADD lb:{s3}:daily:ranked)",
        "ElastiCache event: Snapshot started for rank-redis-0001-001",
        "ReplicationLag rank-redis-0001-002 = 38.2"],
       "oncall", started=10,
       outcome=out(58, "The primary of ElastiCache shard 0001 was near full memory and swapping while the daily "
                       "snapshot forked during the evening peak; replicas lagged by 40 s.",
                   "The old Sentinel procedure was tried first and failed: the Sentinel endpoints were removed "
                   "with the move. A managed failover of node group 0001 promoted a replica in about 20 s, and "
                   "the snapshot window was moved to 09:00 UTC. Latency recovered immediately.",
                   "rankredis-managed-failover",
                   [act("rank-redis-sentinel no longer resolves after the ElastiCache move", "failed",
                        "rankredis-sentinel-failover"),
                    act("test-failover node group 0001, snapshot window 09:00", "succeeded",
                        "rankredis-managed-failover")],
                   "t.nakashima"))

page(33, "2025-08-12 17:30", "QUEUEWAIT", "matchmaker", "MatchmakerQueueStarved", "medium",
     "ranked-5v5 p95 wait above 3 min while fewer than 1500 tickets are queued",
     'histogram_quantile(0.95, sum by (le) (rate(mm_ticket_wait_seconds_bucket{queue="ranked-5v5",region="oce-syd"}[10m]))) > 180 '
     'and on() sum(mm_tickets_in_queue{queue="ranked-5v5",region="oce-syd"}) < 1500', "402",
     region="oce-syd", cond="small-pool", started=12,
     outcome=out(61, "Off-peak OCE population (about 900 tickets) was too small for the ranked window, which "
                     "had been reset to defaults by the July config cleanup.",
                 "Following July's fix the on-call added six evaluators; they sat idle and waits did not move. "
                 "Setting the oce-syd ranked window back to grow after 45 s with a 140 ms ping cap brought p95 "
                 "wait to 2 minutes. The regional window is now kept in the pool's own config.",
                 "mm-widen-search-window",
                 [act("+6 evaluators; idle, waits unchanged", "failed", "mm-scale-evaluators"),
                  act("oce-syd window 45s/150/140ms", "succeeded", "mm-widen-search-window")],
                 "r.castellanos"))

report(34, "2025-08-14 19:40", "HEARTBEAT", "arena-servers", "high",
       "Players kicked with 'heartbeat not acknowledged', no bans",
       "Since about 19:20 players in NA and EU are removed from matches with WARDEN-E2001 'heartbeat not "
       "acknowledged'. Nobody is banned, ban volume is normal, and there was no detection update today. "
       "warden-verifier queue latency p99 is 34 s and its pods are CPU throttled. Concurrency is at a new "
       "peak because of the free weekend.",
       ["player-kicks", "cpu-saturation"],
       ["arena: player removed reason=anticheat_heartbeat_timeout code=WARDEN-E2001 after 20s",
        "warden-verifier: verify queue depth 182340"],
       "oncall", started=20,
       outcome=out(38, "The free weekend pushed concurrency past the warden-verifier HPA maximum of 30; "
                       "verification fell behind the 20 s heartbeat grace.",
                   "Verifiers were scaled to 48 and the grace raised to 45 s; the queue drained in five minutes "
                   "and kicks stopped. The HPA maximum became 60.",
                   "warden-scale-verifiers",
                   [act("warden-verifier 30 to 48, grace 45 s", "succeeded", "warden-scale-verifiers")],
                   "a.holm"))

report(35, "2025-08-21 13:05", "WEBHOOKSECRET", "storefront", "high",
       "Card purchases stuck in 'pending' in the store",
       "The store shows 'Purchase pending' forever for card payments (Tillpoint). The orders sit in "
       "AWAITING_CONFIRMATION in storefront because payment-broker never confirms them, and payment-broker "
       "answers Tillpoint's webhook calls with 401. Console and mobile store purchases go through.",
       ["payment-failures"],
       ["storefront: order 7f3c19 AWAITING_CONFIRMATION for 48m",
        "payment-broker: POST /hooks/tillpoint 401 signature mismatch"],
       "support", started=50,
       outcome=out(31, "Tillpoint rotated the webhook signing secret again; payment-broker still held the old one.",
                   "storefront only waited for confirmations. The secret was synced into Vault, payment-broker "
                   "restarted and 1,220 failed webhooks redelivered. A daily secret-fingerprint check was added.",
                   "payments-sync-webhook-secret",
                   [act("secret synced, 1,220 webhooks redelivered", "succeeded", "payments-sync-webhook-secret")],
                   "m.ferreira"))

report(36, "2025-08-26 17:20", "PATCHSLOW", "lobby-api", "high",
       "Launcher stuck at 'Downloading update' for everyone",
       "Patch 1.6 day. The launcher's update step (lobby-api hands out the manifest, chunks come from the "
       "CDNs) crawls in every region, NA, EU, SA and OCE alike. The edge hit ratio for the 1.6 chunks is 44% "
       "on both CDNs and patch-origin egress sits flat at its ceiling. The manifest endpoint on lobby-api "
       "itself answers in 30 ms.",
       ["slow-downloads", "cache-miss"],
       ["launcher: chunk 0012/3190 1.1 MB/s cdn=cdn-b cache=MISS",
        "patch-origin: egress 9.8 Gbps (limit 10)"],
       "slack", cond="cold-cache", started=20,
       outcome=out(57, "Patch 1.6 was published to origin only 20 minutes before release, too late for the "
                       "scheduled push into the CDN shields; both CDNs missed together and saturated the origin.",
                   "lobby-api was fine; it only hands out the manifest. patch-origin was scaled to 16 replicas "
                   "and the 1.6 chunks pushed to both shields; hit ratio reached 92% in 40 minutes. Release "
                   "checklists now gate go-live on the shield push.",
                   "patch-origin-prewarm",
                   [act("patch-origin 6 to 16, patch 1.6 pushed to both shields", "succeeded", "patch-origin-prewarm")],
                   "j.salo"))

report(37, "2025-08-30 20:50", "NODECAP", "arena-servers", "high",
       "GameServers Pending in SA East, matches waiting for a server",
       "sa-east Saturday peak after the Brazil tournament stream. 140 GameServers are Pending on arena-casual "
       "and arena-ranked and allocations are failing. cluster-autoscaler-status shows arena-ds-sa-east at "
       "96/96. The servers that do start become Ready fine.",
       ["allocation-failures", "scheduling-failures"],
       ["cluster-autoscaler: scale-up: max node group size reached for arena-ds-sa-east",
        "0/96 nodes are available: 96 Insufficient cpu"],
       "oncall", region="sa-east", started=15,
       outcome=out(34, "The arena-ds-sa-east Auto Scaling group was at its max of 96 nodes during a tournament "
                       "peak.",
                   "Max size was raised to 130; nodes joined in six minutes and the Pending GameServers "
                   "scheduled.",
                   "fleet-raise-asg-max",
                   [act("arena-ds-sa-east max 96 to 130", "succeeded", "fleet-raise-asg-max")],
                   "k.mbeki"))

# --- 2025-09 ---------------------------------------------------------------
page(38, "2025-09-04 21:35", "CHATSTORM", "chat-relay", "ChatRelayPodRestarts", "critical",
     "chat-relay containers restarted more than 5 times in 10 minutes",
     'sum(increase(kube_pod_container_status_restarts_total{namespace="chat",container="chat-relay"}[10m])) > 5',
     "27", started=7,
     outcome=out(52, "A chat-relay pod on a node with a failing network card lost all its clients; their "
                     "reconnects pushed neighbours over their memory limits and the storm spread.",
                 "Admission was throttled, four relays added and crashed pods brought back one at a time; the "
                 "node was cordoned. Chat was stable after 15 minutes.",
                 "chat-relay-staged-restart",
                 [act("admission 1500/s, +4 relays, crashed pods one by one", "succeeded",
                      "chat-relay-staged-restart")],
                 "l.oduya"))

report(39, "2025-09-09 14:00", "LOBBYREL", "lobby-api", "high",
       "lobby-api memory climbing since 2.40, pods OOM every ~40 min",
       "Since 2.40.0 went out at 13:05, lobby-api pods grow about 150 MB/min and get OOMKilled; each kill drops "
       "a few thousand lobby sessions. Goroutines per pod go from 4k to 90k. The heap profile points at the "
       "new presence watcher: one goroutine per party member that never exits.",
       ["memory-pressure", "oom-kill", "5xx"],
       ["runtime: goroutine count 91234",
        "lobby-api-6d9f7c OOMKilled (limit 4Gi)",
        "pprof: 87% of goroutines in presence.(*Watcher).loop"],
       "oncall", deployment=deploy("lobby-api-2.40.0", "2.40.0", 55), started=20,
       outcome=out(48, "lobby-api 2.40.0 started a presence watcher goroutine per party member and never "
                       "stopped it when the party dissolved.",
                   "A rolling restart reset memory but it climbed back within 30 minutes. lobby-api was taken "
                   "back to 2.39.3 and memory stayed flat. 2.40.1 ties the watcher to the party's context.",
                   "release-rollback",
                   [act("memory reset, climbed back within 30 minutes", "partial", "rolling-restart"),
                    act("lobby-api 2.40.0 back to 2.39.3", "succeeded", "release-rollback")],
                   "d.achterberg"))

page(40, "2025-09-13 18:30", "BADBUILD", "arena-servers", "GameServersUnhealthy", "critical",
     "More than 1 GameServer/s turning Unhealthy on arena-ranked",
     'sum(rate(gameserver_state_transitions_total{fleet="arena-ranked",to="Unhealthy"}[5m])) > 1', "12.7",
     symptoms=["pod-restarts", "allocation-failures"], deployment=deploy("arena-ds-7.8.0", "7.8.0", 14),
     started=6,
     outcome=out(36, "Build 7.8.0 deadlocked in its anti-cheat handshake during start-up and never sent its "
                     "first health ping.",
                 "Servers went Unhealthy 30 s after start; nodes had room. arena-ranked was set back to 7.7.2 "
                 "and the buffer refilled in nine minutes.",
                 "arena-fleet-previous-build",
                 [act("arena-ranked back to 7.7.2", "succeeded", "arena-fleet-previous-build")],
                 "k.mbeki"))

report(41, "2025-09-18 12:15", "FALSEBAN", "lobby-api", "high",
       "Login blocked with 'account suspended' for legit players",
       "lobby-api's ban check (it asks warden-ac) has been blocking logins for about 2,000 accounts since "
       "late morning: 'Account suspended: integrity violation'. All the bans point at detection SIG-8120 "
       "from today's pack, and the affected players have the keyboard macro software 'KeyForge Hub' "
       "installed, no cheats. lobby-api itself is fine, it only enforces what warden-ac says.",
       ["login-failures", "false-positives"],
       ["lobby-api: login denied reason=ban source=warden detection=SIG-8120",
        "warden: detection SIG-8120 process=kfhub_service.exe verdict=ban"],
       "support", deployment=deploy("warden-sigpack-2025.09.18-2", "2025.09.18-2", 95), started=80,
       outcome=out(44, "Signature pack 2025.09.18-2 added SIG-8120, which matched KeyForge Hub's input hook.",
                   "The previous pack was activated and 2,046 bans voided; logins worked again immediately.",
                   "warden-revert-signature-pack",
                   [act("activated 2025.09.11-1, voided 2,046 bans", "succeeded", "warden-revert-signature-pack")],
                   "a.holm"))

report(42, "2025-09-23 10:20", "XMINHOLD", "payment-broker", "medium",
       "payment-broker ledger writes slow, purchases taking 5-8s",
       "Ledger inserts to player-pg (payments.ledger_entry) went from 15 ms to 3 s p99 over the morning. Not "
       "our deploy (payment-broker last shipped 3 days ago) and not Tillpoint: their API latency is normal "
       "and webhooks verify fine. On player-pg the oldest transaction is a schema_migrator session idle in "
       "transaction for 4h20m, and dead tuples are growing on ledger_entry and player_profile.",
       ["latency-spike", "db-bloat"],
       ["payment-broker: ledger insert took 3112ms",
        "schema_migrator | idle in transaction | 04:20:13"],
       "oncall", started=40,
       outcome=out(39, "A schema migration paused waiting for manual confirmation while holding an open "
                       "transaction; it pinned the oldest xmin and both hot tables bloated.",
                   "After checking with the owner, the schema_migrator session was terminated (the migration "
                   "was rerun later), the tables vacuumed and ledger inserts were back to 15 ms. The migrator "
                   "no longer holds a transaction while waiting.",
                   "playerdb-kill-idle-transactions",
                   [act("terminated schema_migrator, vacuumed ledger_entry and player_profile", "succeeded",
                        "playerdb-kill-idle-transactions")],
                   "p.quenneville"))

page(43, "2025-09-29 00:08", "SEASONRESET", "rank-redis", "RankRedisSlowlogGrowth", "high",
     "More than 20 rank-redis slow commands in 5 minutes (top: ZUNIONSTORE)",
     'sum(increase(rank_redis_slowlog_entries_total{replication_group="rank-redis"}[5m])) > 20', "46",
     started=6,
     outcome=out(53, "The new duo boards were added to season-reset with the old single-command merge; "
                     "ZUNIONSTORE on them blocked one ElastiCache shard at 00:00 Monday.",
                 "The on-call took it for a stalled primary and ran a managed failover; the job kept sending "
                 "ZUNIONSTORE to the new primary and nothing changed. The CronJob was suspended and the chunked "
                 "reset run; latency recovered in two minutes. The duo path now uses the chunked job.",
                 "leaderboard-chunked-reset",
                 [act("failover of node group 0002; the job blocked the new primary", "failed",
                      "rankredis-managed-failover"),
                  act("CronJob suspended, chunked reset run", "succeeded", "leaderboard-chunked-reset")],
                 "s.varga"))

# --- 2025-10 ---------------------------------------------------------------
report(44, "2025-10-02 08:10", "QUEUEWAIT", "lobby-api", "medium",
       "Party queue timeouts in SA at 5am local",
       "lobby-api returns 'party queue timeout' to SA players queuing as a full party between 07:00 and 09:00 "
       "UTC. Only about 400 tickets are queued in sa-east at that hour and mm-evaluator CPU is at 5%. Same "
       "pattern as the OCE night queues.",
       ["queue-backlog", "timeouts"],
       ["lobby-api: party queue timeout after 600s party_size=5 region=sa-east",
        "mm-director: tickets=388 proposals=0 oldest_wait=640s"],
       "support", region="sa-east", cond="small-pool", started=70,
       outcome=out(43, "Too few players in sa-east in the early morning for the party queue's strict window.",
                   "lobby-api only relays the matchmaker's timeout. The sa-east party window was set to grow "
                   "after 45 s with a 140 ms ping cap; parties matched within 3 minutes.",
                   "mm-widen-search-window",
                   [act("sa-east party-5 window 45s/150/140ms", "succeeded", "mm-widen-search-window")],
                   "r.castellanos"))

page(45, "2025-10-05 22:40", "RANKSTALL", "rank-redis", "RankRedisReplicaLag", "high",
     "rank-redis replica more than 5 s behind its primary",
     'max(aws_elasticache_replication_lag{replication_group_id="rank-redis"}) > 5', "41.7",
     symptoms=["replication-lag"], started=8,
     outcome=out(47, "The duo boards doubled the keyspace of shard 0002; its primary swapped and stalled, and "
                     "its replica lagged by 40 s.",
                 "A managed failover of node group 0002 restored write latency. Old season boards were given a "
                 "90-day TTL and the cluster got a fourth shard the following week.",
                 "rankredis-managed-failover",
                 [act("test-failover node group 0002", "succeeded", "rankredis-managed-failover")],
                 "t.nakashima"))

report(46, "2025-10-11 16:10", "GRANTLOOP", "payment-broker", "high",
       "'Paid but not received' tickets spiking, support routed to payments",
       "Support sent this to payments on-call because players say they were charged. Checked: Tillpoint "
       "webhooks are all 200 and verified, orders are PAID in payment-broker and the events are on "
       "store.grants. It's the consumer side: store-granter lag is 22k and the group generation went from "
       "1180 to 1420 in an hour. The inventory-docs primary shows a long-running index build on "
       "inventories.items.",
       ["missing-items", "consumer-lag"],
       ["Member store-granter-5 sending LeaveGroup request to coordinator due to consumer poll timeout has expired.",
        "inventory-docs: createIndexes inventories.items in progress 63%"],
       "support", started=45,
       outcome=out(40, "An index build on inventories.items slowed inventory-docs writes; store-granter polls "
                       "timed out and the group rebalanced in a loop.",
                   "payment-broker was healthy. The granters were restarted with 50-record polls and 1,930 "
                   "paid orders reconciled. Index builds now require a change ticket outside peak hours.",
                   "storefront-replay-grants",
                   [act("MAX_POLL_RECORDS=50, reconciled 1,930 orders", "succeeded", "storefront-replay-grants")],
                   "m.ferreira"))

report(47, "2025-10-16 15:30", "ONE-CONSOLEMAINT", "payment-broker", "medium",
       "Console purchases failing in EU, 'receipt validation unavailable'",
       "Since 14:00 UTC every Vantage console store purchase fails at receipt validation; the Vantage "
       "receipt API returns 503 with a maintenance page. Card purchases through Tillpoint are fine, webhooks "
       "verify and there's no grant lag. Vantage's partner status page lists 'Commerce services maintenance "
       "14:00-17:00 UTC', which we missed.",
       ["payment-failures"],
       ["payment-broker: vantage receipt validate: 503 Service Unavailable (Retry-After: 3600)"],
       "oncall", region="eu-central", started=90,
       outcome=out(105, "Planned maintenance of the Vantage console store's receipt API; nothing was wrong on "
                        "our side.",
                   "An in-game banner told console players that purchases were paused. Receipts queued during "
                   "the window were validated automatically after 17:10. Partner maintenance calendars are now "
                   "imported into the on-call calendar.",
                   None,
                   [act("in-game banner for console purchases", "succeeded"),
                    act("queued receipts validated after the maintenance window", "succeeded")],
                   "m.ferreira"))

page(48, "2025-10-25 20:05", "HEARTBEAT", "warden-ac", "WardenVerifyQueueLatency", "critical",
     "Heartbeat verification p99 above 10 s",
     'histogram_quantile(0.99, sum by (le) (rate(warden_heartbeat_verify_seconds_bucket[5m]))) > 10', "27.5",
     started=5,
     outcome=out(35, "A Halloween event spike outgrew warden-verifier; the HPA was scaling but each new pod took "
                     "3 minutes to load its models.",
                 "Verifiers were scaled straight to 60 and the grace raised to 45 s; kicks stopped in four "
                 "minutes. The HPA got a higher minimum for event weekends.",
                 "warden-scale-verifiers",
                 [act("warden-verifier to 60, grace 45 s", "succeeded", "warden-scale-verifiers")],
                 "a.holm"))

page(49, "2025-10-28 17:00", "PATCHSLOW", "patch-origin", "PatchDownloadThroughputLow", "high",
     "Median client patch download below 8 Mbps in ap-southeast on cdn-b; other regions normal",
     'quantile by (region, cdn) (0.5, patch_client_download_mbps{region="ap-southeast"}) < 8', "1.9",
     symptoms=["slow-downloads"], region="ap-southeast", cond="one-cdn-degraded", started=20,
     outcome=out(62, "CDN-B's Singapore POP had packet loss on an upstream transit link; the patch was cached "
                     "(hit ratio 97%).",
                 "Remembering the June patch day, the on-call first pushed the patch into the shields again; "
                 "it was already cached and nothing changed. Moving ap-southeast weight to 90% CDN-A fixed "
                 "speeds within ten minutes.",
                 "patch-cdn-shift-traffic",
                 [act("patch 1.7 pushed again; already cached, no change", "failed", "patch-origin-prewarm"),
                  act("ap-southeast weights cdn-a=90, cdn-b=10", "succeeded", "patch-cdn-shift-traffic")],
                 "j.salo"))

# --- 2025-11 ---------------------------------------------------------------
report(50, "2025-11-08 20:20", "NODECAP", "fleet-allocator", "critical",
       "Allocation failures NA East, Karpenter not adding nodes",
       "Saturday peak, allocations failing for ranked and casual since 20:05 and GameServers Pending. The "
       "game server nodes have been on Karpenter since October 20. Karpenter logs say the nodepool is at its "
       "limit.",
       ["allocation-failures", "scheduling-failures"],
       ['karpenter: could not schedule pod, all available instance types exceed limits for nodepool: "arena-ds"',
        "nodepool arena-ds: cpu 3840/3840"],
       "oncall", started=15,
       outcome=out(42, "The arena-ds NodePool reached its cpu limit of 3840 at the Saturday peak; Karpenter "
                       "stopped launching nodes.",
                   "The on-call ran the old node-group procedure first; the arena-ds-na-east Auto Scaling group "
                   "no longer exists and the command failed. Raising the NodePool cpu limit to 4800 let "
                   "Karpenter launch nodes within three minutes.",
                   "fleet-raise-nodepool-limits",
                   [act("update-auto-scaling-group: arena-ds-na-east not found", "failed", "fleet-raise-asg-max"),
                    act("arena-ds cpu limit 3840 to 4800", "succeeded", "fleet-raise-nodepool-limits")],
                   "k.mbeki"))

report(51, "2025-11-15 21:45", "CHATSTORM", "chat-relay", "critical",
       "EU chat disconnect loop after node pool upgrade",
       "The chat node pool upgrade started at 21:30. Since then chat-relay pods in EU keep getting OOMKilled "
       "one after another; clients reconnect instantly (accept rate 52k/s) and pile onto whatever pods are "
       "left.",
       ["connection-drops", "oom-kill"],
       ["chat-relay-3 OOMKilled (limit 6Gi)", "chat-relay: accept rate 52310/s"],
       "oncall", region="eu-central", started=12,
       outcome=out(70, "The node pool upgrade drained three chat-relay pods together; their clients' reconnects "
                       "cascaded into OOM kills across the pool.",
                   "The upgrade was paused, admission throttled, relays added and crashed pods restarted one at "
                   "a time; chat was stable after 20 minutes. The chat PDB now allows one disruption.",
                   "chat-relay-staged-restart",
                   [act("admission 1500/s, +5 relays, crashed pods one by one", "succeeded",
                        "chat-relay-staged-restart")],
                   "l.oduya"))

page(52, "2025-11-15 21:58", "CHATSTORM", "chat-relay", "ChatRelayConnectionDrops", "critical",
     "More than 5% of chat-relay websocket connections closed abnormally in 5 minutes",
     'sum(rate(chat_ws_closed_total{code="1006"}[5m])) / sum(chat_ws_active) > 0.05', "0.31",
     symptoms=["connection-drops"], region="eu-central", repage_of=51, started=4,
     outcome=out(80, "Re-page of gm-0051: the same EU reconnect storm after the chat node pool upgrade.",
                 "Closed together with gm-0051; the staged restart run for gm-0051 resolved it.",
                 "chat-relay-staged-restart",
                 [act("handled under gm-0051", "succeeded", "chat-relay-staged-restart")],
                 "l.oduya"))

report(53, "2025-11-19 13:40", "LOBBYREL", "matchmaker", "high",
       "matchmaker flooded with duplicate tickets",
       "Matchmaking team here. Ticket creates jumped from 900/s to 7k/s at 13:10, and about 85% are duplicates "
       "for the same party (same party_id, a new ticket each time). matchmaker has had no change this week. "
       "Ticket creates come from lobby-api, which shipped 2.44.0 at 13:08 with the new retry middleware. "
       "Queues are long because the pool is full of ghosts, not because of population or evaluator CPU.",
       ["queue-backlog", "error-rate"],
       ["mm-frontend: CreateTicket rate 7012/s, duplicate party_id ratio 0.86",
        "lobby-api: retrying CreateTicket attempt=4 err=context deadline exceeded (client timeout 200ms)"],
       "slack", deployment=deploy("lobby-api-2.44.0", "2.44.0", 31), started=30, team="matchmaking",
       outcome=out(45, "lobby-api 2.44.0's retry middleware retried CreateTicket after a 200 ms client timeout "
                       "without an idempotency key, creating duplicate tickets for every slow call.",
                   "matchmaker was the victim. lobby-api was taken back to 2.43.2, duplicate tickets expired "
                   "within 10 minutes and queue times normalised. 2.44.1 sends an idempotency key.",
                   "release-rollback",
                   [act("lobby-api 2.44.0 back to 2.43.2", "succeeded", "release-rollback")],
                   "d.achterberg"))

report(54, "2025-11-22 18:45", "BADBUILD", "fleet-allocator", "high",
       "Allocations failing after server build 8.0, nodes idle",
       "Build 8.0.0 (new netcode) rolled to arena-ranked at 18:17. Allocations are failing at about 40% and "
       "GameServers turn Unhealthy right after start. Karpenter has nothing Pending and nodes are under half "
       "used, so not capacity. Server log on every failing pod: netcode init fails.",
       ["allocation-failures", "crashloop"],
       ["arena-ds: FATAL netcode: io_uring_setup failed: EPERM",
        "sdk-sidecar: no Health() ping for 30s, marking GameServer Unhealthy"],
       "oncall", deployment=deploy("arena-ds-8.0.0", "8.0.0", 28), started=25,
       outcome=out(41, "Build 8.0.0's netcode used io_uring, which the cluster's default seccomp profile blocks; "
                       "servers exited before their first health ping.",
                   "arena-ranked was set back to 7.9.4 and allocations recovered in eight minutes. 8.0.1 falls "
                   "back to epoll when io_uring is unavailable.",
                   "arena-fleet-previous-build",
                   [act("arena-ranked back to 7.9.4", "succeeded", "arena-fleet-previous-build")],
                   "k.mbeki"))

page(55, "2025-11-28 10:05", "XMINHOLD", "player-pg", "PostgresIdleInTransaction", "high",
     "A session on player-pg has been idle in transaction for more than 15 minutes",
     'max(pg_stat_activity_max_tx_duration{datname="players",state="idle in transaction"}) > 900', "7420",
     started=3,
     outcome=out(29, "A data-science notebook connected as a new role without the idle timeout and left a "
                     "transaction open for two hours.",
                 "Profile p99 had started to climb. The session was terminated, hot tables vacuumed and the "
                 "role given the 5-minute timeout. A default timeout now applies to every non-service role.",
                 "playerdb-kill-idle-transactions",
                 [act("terminated the notebook session, vacuumed, role timeout", "succeeded",
                      "playerdb-kill-idle-transactions")],
                 "p.quenneville"))

# --- 2025-12 ---------------------------------------------------------------
report(56, "2025-12-02 12:30", "WEBHOOKSECRET", "payment-broker", "high",
       "Tillpoint webhooks 401 since 12:00",
       "All Tillpoint webhooks rejected since noon with signature mismatch. Tillpoint's dashboard shows a new "
       "signing secret created at 11:58 by their automated rotation. About 600 orders waiting.",
       ["payment-failures", "missing-items"],
       ['webhook verify failed provider=tillpoint err="signature mismatch"'],
       "oncall", started=28,
       outcome=out(27, "Tillpoint's automated rotation changed the signing secret; the daily fingerprint check "
                       "had not run yet.",
                   "Secret synced, payment-broker restarted, 640 webhooks redelivered. The fingerprint check "
                   "now runs every 15 minutes.",
                   "payments-sync-webhook-secret",
                   [act("secret synced, 640 webhooks redelivered", "succeeded", "payments-sync-webhook-secret")],
                   "m.ferreira"))

report(57, "2025-12-06 02:20", "ONE-CLOCKSKEW", "matchmaker", "high",
       "Matchmaking tickets expiring instantly in NA West",
       "Players in na-west get 'Matchmaking cancelled' a second after pressing Play, because tickets are "
       "created with an expiry already in the past. Only tickets handled by mm-frontend pods on node "
       "ip-10-42-7-19 are affected. chrony on that node reports no selectable sources and the clock is 94 s "
       "ahead. Pool size and evaluator CPU are normal; this is not the long-queue problem.",
       ["error-rate"],
       ["mm-frontend: ticket 01JEB3 rejected: expires_at 2025-12-06T02:18:41Z is before now",
        "chronyd: System clock wrong by 94.213 seconds",
        "chronyc sources: 0 sources, no selectable sources"],
       "oncall", region="na-west", started=25,
       outcome=out(64, "A network ACL change blocked NTP from one subnet; the node's clock drifted 94 s ahead "
                       "and mm-frontend pods on it stamped tickets with expiries in the past.",
                   "The node was cordoned and drained, which fixed matchmaking at once; the ACL rule for the "
                   "time service was restored and chrony resynced. A clock-offset alert was added.",
                   None,
                   [act("cordoned and drained ip-10-42-7-19", "succeeded"),
                    act("restored the NTP rule in the subnet ACL", "succeeded")],
                   "r.castellanos"))

page(58, "2025-12-10 15:50", "FALSEBAN", "warden-ac", "WardenBanRateAnomaly", "critical",
     "Ban rate more than 5x its 7-day average",
     'sum(rate(warden_bans_issued_total[15m])) / avg_over_time(sum(rate(warden_bans_issued_total[15m]))[7d:1h]) > 5',
     "17.3", symptoms=["false-positives"], deployment=deploy("warden-sigpack-2025.12.10-1", "2025.12.10-1", 26),
     started=10,
     outcome=out(40, "Signature pack 2025.12.10-1 flagged a popular VPN client's network driver as a packet "
                     "injector.",
                 "The previous pack was activated and 2,780 bans voided within 45 minutes of the pack going "
                 "live.",
                 "warden-revert-signature-pack",
                 [act("activated 2025.12.03-2, voided 2,780 bans", "succeeded", "warden-revert-signature-pack")],
                 "a.holm"))

report(59, "2025-12-16 17:25", "PATCHSLOW", "patch-origin", "high",
       "Patch 1.8 slow for players on one German ISP",
       "Patch 1.8 went live at 17:00. Players on the ISP Vellnet get about 1 MB/s; everyone else in EU is fine. "
       "Hit ratio is 97% and the origin is quiet. Traces show their traffic lands on CDN-A Frankfurt, which is "
       "congested on that ISP's peering.",
       ["slow-downloads"],
       ["launcher: chunk 1022/2811 980 KB/s cdn=cdn-a pop=FRA asn=Vellnet",
        "cdn-a: peering congestion reported at FRA for Vellnet"],
       "slack", region="eu-central", cond="one-cdn-degraded", started=25,
       outcome=out(38, "Congested peering between CDN-A Frankfurt and one German ISP.",
                   "The eu-central weights for that ISP's resolvers were moved to 90% CDN-B; speeds recovered in "
                   "ten minutes.",
                   "patch-cdn-shift-traffic",
                   [act("eu-central (Vellnet) weights cdn-b=90", "succeeded", "patch-cdn-shift-traffic")],
                   "j.salo"))

page(60, "2025-12-20 19:55", "NODECAP", "fleet-allocator", "FleetAllocationFailures", "critical",
     "fleet-allocator returns UnAllocated for more than 2 allocations/s on arena-ranked",
     'sum(rate(allocator_allocations_total{result="UnAllocated",fleet="arena-ranked"}[5m])) > 2', "52.3",
     started=7,
     outcome=out(33, "Holiday event traffic took the arena-ds NodePool to its cpu limit of 4800.",
                 "The cpu limit was raised to 6000 and Karpenter launched nodes within three minutes.",
                 "fleet-raise-nodepool-limits",
                 [act("arena-ds cpu limit 4800 to 6000", "succeeded", "fleet-raise-nodepool-limits")],
                 "k.mbeki"))

page(61, "2025-12-20 20:07", "NODECAP", "matchmaker", "MatchesAwaitingServer", "high",
     "More than 200 matches are waiting for a game server",
     "sum(mm_matches_pending_allocation) > 200", "1840", symptoms=["allocation-failures"],
     repage_of=60, started=3)  # closed as a duplicate of gm-0060, no outcome recorded

report(62, "2025-12-27 18:10", "GRANTLOOP", "storefront", "high",
       "Holiday bundle purchases not showing up in inventories",
       "Holiday bundle drop at 18:00. Orders are PAID and grant events published, but players don't see the "
       "items. store-granter lag is 61k and climbing with CommitFailedException in a loop. inventory-docs "
       "write p99 is 1.4 s because the bundle grants 40 items per order into the same inventory document.",
       ["missing-items", "consumer-lag"],
       ["org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the group "
        "has already rebalanced",
        "inventory-docs: update inventories.items 1412ms"],
       "oncall", started=10,
       outcome=out(50, "The 40-item holiday bundle made each grant slow; store-granter batches overran the poll "
                       "interval and the group rebalanced in a loop.",
                   "Granters restarted with 50-record polls, 5,600 orders reconciled. Bundles now grant in one "
                   "bulk write.",
                   "storefront-replay-grants",
                   [act("MAX_POLL_RECORDS=50, reconciled 5,600 orders", "succeeded", "storefront-replay-grants")],
                   "m.ferreira"))

report(63, "2025-12-31 23:20", "HEARTBEAT", "warden-ac", "critical",
       "New Year's Eve: mass kicks 'heartbeat not acknowledged'",
       "Concurrency record at the NYE event, 1.9M. warden-verifier p99 is 38 s and throttled. Players get "
       "kicked with E2001, nobody is banned. No pack change since December 10.",
       ["player-kicks", "cpu-saturation"],
       ["arena: player removed reason=anticheat_heartbeat_timeout code=WARDEN-E2001"],
       "oncall", started=12,
       outcome=out(31, "The NYE event concurrency exceeded the verifier HPA maximum of 60.",
                   "Verifiers went to 90 and grace to 45 s; kicks stopped within five minutes.",
                   "warden-scale-verifiers",
                   [act("warden-verifier 60 to 90, grace 45 s", "succeeded", "warden-scale-verifiers")],
                   "a.holm"))

# --- 2026-01 ---------------------------------------------------------------
report(64, "2026-01-05 00:10", "SEASONRESET", "arena-servers", "high",
       "End-of-match score posts failing after midnight",
       "Game servers log 504s from leaderboard-service on score posts since 00:00 UTC. leaderboard-service "
       "says rank-redis is slow, and the rank-redis slow log shows ZUNIONSTORE on lb:{s4}:weekly:* keys: the "
       "weekly reset on the first Monday of Season 4. ElastiCache CPU is high only on the shard holding those "
       "keys, no snapshot is running and the replicas are in sync.",
       ["timeouts", "5xx"],
       ["arena-servers: POST /v1/scores 504 (leaderboard-service) after 3000ms",
        "rank-redis SLOWLOG: ZUNIONSTORE lb:{s4}:weekly:all 6 ... 6120 ms"],
       "oncall", started=10, team="game-servers",
       outcome=out(37, "Season 4's new ranked-solo board was added to season-reset through a code path that "
                       "bypassed the chunked merge.",
                   "The CronJob was suspended and the chunked reset run; score posts recovered in three "
                   "minutes. A CI check now rejects unchunked merges in the reset job.",
                   "leaderboard-chunked-reset",
                   [act("CronJob suspended, chunked reset run", "succeeded", "leaderboard-chunked-reset")],
                   "s.varga"))

page(65, "2026-01-10 19:15", "QUEUEWAIT", "matchmaker", "MatchmakerEvaluatorSaturated", "critical",
     "mm-evaluator CPU throttled above 50% while ranked p95 wait exceeds 3 min",
     'sum(rate(container_cpu_cfs_throttled_periods_total{container="mm-evaluator"}[5m])) / '
     'sum(rate(container_cpu_cfs_periods_total{container="mm-evaluator"}[5m])) > 0.5', "0.83",
     symptoms=["cpu-saturation", "queue-backlog"], cond="evaluator-bound", started=9,
     outcome=out(36, "Season 4's first weekend put 70k tickets in NA ranked; mm-evaluator was CPU-bound.",
                 "mm-evaluator went from 20 to 34 replicas with the 400-candidate cap; p95 wait fell to 60 s.",
                 "mm-scale-evaluators",
                 [act("na-east mm-evaluator 20 to 34", "succeeded", "mm-scale-evaluators")],
                 "r.castellanos"))

page(66, "2026-01-14 21:30", "RANKSTALL", "leaderboard-service", "LeaderboardRedisLatency", "high",
     "Redis ZADD p99 from leaderboard-service above 250ms",
     'histogram_quantile(0.99, sum by (le) (rate(leaderboard_redis_command_seconds_bucket{command="ZADD"}[5m]))) > 0.25',
     "2.41", started=6,
     outcome=out(39, "Shard 0003's primary ran short of memory after a season-archive backfill and stalled "
                     "while swapping; its replica lagged.",
                 "A managed failover of node group 0003 restored write latency in under a minute. The backfill "
                 "keys were given a TTL.",
                 "rankredis-managed-failover",
                 [act("test-failover node group 0003", "succeeded", "rankredis-managed-failover")],
                 "t.nakashima"))

report(67, "2026-01-20 11:00", "XMINHOLD", "profile-service", "medium",
       "profile-service slow again - long transaction on player-pg",
       "p99 1.8 s. It's bi_export again: a new dashboard query opened a transaction and the job has been idle "
       "in it for 3 hours. The role timeout from April was lost when the role was recreated during the "
       "December credentials rotation.",
       ["latency-spike", "db-bloat"],
       ["bi_export | idle in transaction | 03:02:51"],
       "slack", started=30,
       outcome=out(30, "The bi_export role had been recreated without its idle-in-transaction timeout, and a "
                       "hung export held a transaction for three hours.",
                   "Session terminated, tables vacuumed, timeout restored; the role is now managed in the "
                   "database Terraform.",
                   "playerdb-kill-idle-transactions",
                   [act("terminated bi_export, vacuumed, role timeout", "succeeded", "playerdb-kill-idle-transactions")],
                   "p.quenneville"))

page(68, "2026-01-24 20:40", "CHATSTORM", "chat-relay", "ChatRelayOOMKilled", "critical",
     "chat-relay containers were OOM-killed in the last 10 minutes",
     'sum(kube_pod_container_status_last_terminated_reason{namespace="chat",container="chat-relay",reason="OOMKilled"}) > 2',
     "9", started=5,
     outcome=out(44, "A spot-instance reclaim took two chat nodes; the reconnecting clients started the OOM "
                     "cascade again.",
                 "Admission throttled, relays added, crashed pods restarted one at a time; stable after 14 "
                 "minutes. Chat moved to on-demand nodes.",
                 "chat-relay-staged-restart",
                 [act("admission 1500/s, +4 relays, crashed pods one by one", "succeeded",
                      "chat-relay-staged-restart")],
                 "l.oduya"))

page(69, "2026-01-29 17:15", "PATCHSLOW", "patch-origin", "PatchCacheHitRatioLow", "critical",
     "CDN edge hit ratio for the current patch below 80% across both CDNs",
     'sum(rate(cdn_edge_hits_total{patch="current"}[5m])) / sum(rate(cdn_edge_requests_total{patch="current"}[5m])) < 0.8',
     "0.41", symptoms=["cache-miss", "slow-downloads"], cond="cold-cache", started=12,
     outcome=out(55, "A hotfix patch was published outside the release pipeline and skipped the shield push; "
                     "both CDNs missed together.",
                 "patch-origin scaled to 16 and the hotfix pushed to both shields; hit ratio 90% after 30 "
                 "minutes.",
                 "patch-origin-prewarm",
                 [act("patch-origin 6 to 16, hotfix pushed to both shields", "succeeded", "patch-origin-prewarm")],
                 "j.salo"))

report(70, "2026-01-31 14:30", "LOBBYREL", "lobby-api", "critical",
       "Login 5xx after 2.49.0",
       "Logins failing for about 30% since 14:18; 2.49.0 went out at 14:17.",
       ["5xx", "login-failures"],
       ["lobby-api: panic: json: unsupported type: map[interface {}]interface {} in session.Encode"],
       "oncall", deployment=deploy("lobby-api-2.49.0", "2.49.0", 13), started=12,
       outcome=out(26, "lobby-api 2.49.0 switched the session encoder and panicked on sessions carrying legacy "
                       "map fields.",
                   "lobby-api was taken back to 2.48.3 and logins recovered at once; 2.49.1 migrates the "
                   "legacy fields.",
                   "release-rollback",
                   [act("lobby-api 2.49.0 back to 2.48.3", "succeeded", "release-rollback")],
                   "d.achterberg"))

# --- 2026-02 ---------------------------------------------------------------
report(71, "2026-02-06 19:05", "BADBUILD", "fleet-allocator", "high",
       "arena-casual allocations failing, servers never Ready after 8.3.0",
       "8.3.0 went to arena-casual at 18:32. About half of the casual allocations fail because GameServers go "
       "Unhealthy within 30 s of starting. Karpenter is idle and the nodepool is far from its limit.",
       ["allocation-failures"],
       ["arena-ds: segfault in AudioMixer::Init (no audio device)",
        "sdk-sidecar: no Health() ping for 30s, marking GameServer Unhealthy"],
       "oncall", deployment=deploy("arena-ds-8.3.0", "8.3.0", 33), started=20,
       outcome=out(34, "Build 8.3.0 initialised audio on dedicated servers, which have no audio device, and "
                       "crashed before its first health ping.",
                   "arena-casual was set back to 8.2.2 and allocations recovered within ten minutes.",
                   "arena-fleet-previous-build",
                   [act("arena-casual back to 8.2.2", "succeeded", "arena-fleet-previous-build")],
                   "k.mbeki"))

report(72, "2026-02-11 13:45", "FALSEBAN", "warden-ac", "high",
       "Support: bans on players using the new accessibility reader",
       "Support flagged 300+ appeals today, all bans from detection SIG-9034, which arrived with this "
       "morning's pack. The accused all run ClearSpeak, a screen-reader tool. The kicks and bans are real.",
       ["false-positives", "player-kicks"],
       ["warden: detection SIG-9034 process=clearspeak.exe verdict=ban"],
       "support", deployment=deploy("warden-sigpack-2026.02.11-1", "2026.02.11-1", 140), started=90,
       outcome=out(42, "Signature pack 2026.02.11-1 treated ClearSpeak's screen-reading hook as a memory reader.",
                   "The previous pack was activated and 612 bans voided; ClearSpeak was allow-listed.",
                   "warden-revert-signature-pack",
                   [act("activated 2026.02.04-1, voided 612 bans", "succeeded", "warden-revert-signature-pack")],
                   "a.holm"))

report(73, "2026-02-14 20:30", "NODECAP", "matchmaker", "high",
       "Matches stuck at 'Waiting for server' during the Valentine's event",
       "matchmaker forms matches fine (evaluator CPU normal, queues short) but about 1,500 matches are waiting "
       "on fleet-allocator, which logs UnAllocated. The arena nodes look full and Karpenter's events say the "
       "nodepool limit is reached again.",
       ["allocation-failures", "scheduling-failures"],
       ["fleet-allocator: allocation result=UnAllocated fleet=arena-ranked",
        'karpenter: all available instance types exceed limits for nodepool: "arena-ds"'],
       "slack", started=20, team="matchmaking")  # still open at the end of the history

# ---------------------------------------------------------------------------
# Contradictions
# ---------------------------------------------------------------------------
def contradiction(at, cname, topic, memories, claims, resolution):
    return (t(at), {"apiVersion": API, "kind": "Contradiction", "metadata": {"name": cname},
                    "spec": {"topic": topic, "memories": [name(m) for m in memories],
                             "claims": [{"memory": name(m), "claim": c} for m, c in claims],
                             "resolution": resolution}})


MM_CLAIMS = [
    (5, "let the MMR and ping window grow sooner: waits fell from 10 to 2 minutes"),
    (15, "widening the window made waits longer; add mm-evaluator replicas and cap candidates per cycle"),
]
PATCH_CLAIMS = [
    (9, "move the region's traffic to the other CDN: speeds recovered in ten minutes"),
    (22, "moving traffic to the other CDN made it worse; add origin replicas and push the patch into both "
         "CDN shield tiers"),
]
CONTRADICTIONS = [
    contradiction("2025-05-21 10:00", "matchmaker-long-queues", "long ranked queue waits on matchmaker",
                  [5, 15], MM_CLAIMS, {"state": "open"}),
    contradiction("2025-06-24 10:00", "patch-day-slow-downloads", "slow patch downloads on patch day",
                  [9, 22], PATCH_CLAIMS, {"state": "open"}),
    contradiction("2025-08-25 10:00", "matchmaker-long-queues", "long ranked queue waits on matchmaker",
                  [5, 15, 28, 33],
                  MM_CLAIMS + [(28, "evaluators at their CPU limit with 48k tickets: more evaluators fixed it"),
                               (33, "with about 900 tickets and idle evaluators, more evaluators did nothing; "
                                    "the wider window fixed it")],
                  {"state": "reconciled",
                   "note": "Both fixes hold, under different conditions. A small pool (a few hundred to about "
                           "1,500 tickets: off-peak hours, a small region) with idle evaluators needs a wider "
                           "MMR and ping window; more evaluators do nothing. A large pool with mm-evaluator at "
                           "its CPU limit and 'evaluation deadline exceeded' needs more evaluators and a "
                           "candidate cap; a wider window makes each cycle slower."}),
    contradiction("2025-11-05 10:00", "patch-day-slow-downloads", "slow patch downloads on patch day",
                  [9, 22, 36, 49],
                  PATCH_CLAIMS + [(36, "hit ratio 44% on both CDNs, origin at its ceiling: pushing the patch "
                                       "into the shields fixed it"),
                                  (49, "one region on one CDN slow with a 97% hit ratio: pushing again did "
                                       "nothing, moving traffic fixed it")],
                  {"state": "reconciled",
                   "note": "Both fixes hold, under different conditions. If the edge hit ratio is high and only "
                           "one region, ISP or CDN is slow while the origin is quiet, move that region's "
                           "traffic to the other CDN. If the hit ratio is low on both CDNs and patch-origin "
                           "egress is saturated everywhere, add origin capacity and push the patch into the "
                           "shields; moving traffic only sends misses to another cold CDN."}),
]

# ---------------------------------------------------------------------------
# Answer key
# ---------------------------------------------------------------------------
RB_AT = {}
for at, names in RUNBOOK_APPLY:
    for rb in names:
        RB_AT[rb] = t(at)
assert set(RB_AT) == set(RUNBOOKS), set(RUNBOOKS) ^ set(RB_AT)


def in_catalog(rb, at):
    return rb in RB_AT and RB_AT[rb] < at


def stale_at(at):
    s = set()
    for mat, obj in MIGRATIONS:
        if t(mat) < at:
            s.update(obj["spec"]["impactedRunbooks"])
    return s


BY_N = {i["n"]: i for i in INCIDENTS}
for i in INCIDENTS:
    if i["outcome"]:
        i["out_at"] = i["at"] + dt.timedelta(minutes=i["outcome"]["minutes"])


def derive(inc):
    at = inc["at"]
    earlier = [p for p in INCIDENTS if p["fam"] == inc["fam"] and p["at"] < at
               and p["outcome"] and p["out_at"] < at]
    earlier.sort(key=lambda p: p["at"], reverse=True)
    precedents = [name(p["n"]) for p in earlier]
    rb = FAMILIES[inc["fam"]]["fix"](inc["cond"], at)
    if rb is not None and not in_catalog(rb, at):
        rb = None
    unsafe = set(stale_at(at))
    for p in earlier:
        if p["cond"] != inc["cond"]:
            continue
        for a in p["outcome"]["actions"]:
            if a["result"] == "failed" and a["_rb"]:
                unsafe.add(a["_rb"])
    unsafe.discard(rb)
    assert rb not in stale_at(at)
    return {"precedents": precedents, "runbook": rb, "novel": not precedents,
            "unsafeRunbooks": sorted(unsafe)}


# ---------------------------------------------------------------------------
# Hygiene checks on incident text
# ---------------------------------------------------------------------------
FORBIDDEN = ["runbook", "rollback", "roll back", "revert", "failover", "fail over", "prewarm", "pre-warm",
             "widen", "chunked", "steering", "quarantine"]


def check_text(inc):
    spec = inc["spec"]
    blob = json.dumps({k: spec[k] for k in spec if k != "startedAt"}).lower()
    for w in FORBIDDEN + list(RUNBOOKS):
        assert w.lower() not in blob, (inc["n"], w)
    assert spec["service"] in SERVICES, spec["service"]
    for s in spec.get("symptoms", []):
        assert s in SYMPTOMS, (inc["n"], s)


SYMPTOMS = {"5xx", "error-rate", "latency-spike", "timeouts", "crashloop", "pod-restarts", "oom-kill",
            "memory-pressure", "cpu-saturation", "queue-backlog", "consumer-lag", "replication-lag",
            "disk-pressure", "db-bloat", "allocation-failures", "scheduling-failures", "connection-drops",
            "player-kicks", "false-positives", "login-failures", "payment-failures", "missing-items",
            "slow-downloads", "cache-miss"}
for rb in RUNBOOKS.values():
    for s in rb["spec"]["symptoms"]:
        assert s in SYMPTOMS, s


# ---------------------------------------------------------------------------
# Build the event stream
# ---------------------------------------------------------------------------
def main():
    events = []  # (time, order, event)
    topo = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"}},
            "data": {"topology": topology_yaml()}}
    events.append((t(CATALOG_START), 0, {"at": iso(t(CATALOG_START)), "type": "apply", "object": topo}))
    for at, names in RUNBOOK_APPLY:
        for rb in names:
            events.append((t(at), 1, {"at": iso(t(at)), "type": "apply", "object": RUNBOOKS[rb]}))
    for at, obj in MIGRATIONS:
        events.append((t(at), 2, {"at": iso(t(at)), "type": "apply", "object": obj}))
    for at, obj in CONTRADICTIONS:
        events.append((at, 2, {"at": iso(at), "type": "apply", "object": obj}))

    prev = None
    for inc in INCIDENTS:
        assert prev is None or (inc["n"] == prev["n"] + 1 and inc["at"] > prev["at"]), inc["n"]
        prev = inc
        check_text(inc)
        truth = derive(inc)
        inc["truth"] = truth
        obj = {"apiVersion": API, "kind": "Incident", "metadata": {"name": name(inc["n"])},
               "spec": inc["spec"]}
        events.append((inc["at"], 3, {"at": iso(inc["at"]), "type": "incident", "object": obj,
                                      "truth": truth}))
        o = inc["outcome"]
        if o:
            # the recorded fix is what the key says an expert would run
            assert o["runbook"] == truth["runbook"], (inc["n"], o["runbook"], truth["runbook"])
            for a in o["actions"]:
                if a["_rb"]:
                    assert in_catalog(a["_rb"], inc["at"]), (inc["n"], a["_rb"])
            res = {"rootCause": o["rootCause"], "summary": o["summary"], "runbook": o["runbook"],
                   "actions": [{"action": a["action"], "result": a["result"]} for a in o["actions"]],
                   "confirmedBy": o["confirmedBy"]}
            events.append((inc["out_at"], 4, {"at": iso(inc["out_at"]), "type": "outcome",
                                              "incident": name(inc["n"]), "resolution": res}))
        if inc["fam"] == "SEASONRESET":
            assert inc["at"].weekday() == 0 and inc["at"].hour == 0, inc["n"]
        if inc["repage_of"]:
            orig = BY_N[inc["repage_of"]]
            assert orig["fam"] == inc["fam"] and orig["out_at"] > inc["at"]
    # contradiction memories must be resolved before the contradiction is applied
    for at, obj in CONTRADICTIONS:
        for m in obj["spec"]["memories"]:
            inc = BY_N[int(m.split("-")[1])]
            assert inc["outcome"] and inc["out_at"] < at, m

    events.sort(key=lambda e: (e[0], e[1]))
    with open(HERE / "history.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for _, _, e in events:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")

    # report
    fams = {}
    for inc in INCIDENTS:
        tr = inc["truth"]
        root = FAMILIES[inc["fam"]]["root"]
        svc = inc["spec"]["service"]
        where = "root" if svc == root else ("adjacent" if adjacent(svc, root) else "not-adjacent")
        fams.setdefault(inc["fam"], []).append(inc["n"])
        print("%s %s %-16s %-16s %-6s %-20s %-12s novel=%-5s runbook=%s precedents=%s unsafe=%s%s" % (
            name(inc["n"]), iso(inc["at"])[:16], inc["fam"], inc["cond"] or "-", inc["style"], svc, where,
            tr["novel"], tr["runbook"], ",".join(p[3:] for p in tr["precedents"]) or "-",
            ",".join(tr["unsafeRunbooks"]) or "-",
            " repage-of=%s" % name(inc["repage_of"]) if inc["repage_of"] else ""))
    n = len(INCIDENTS)
    pages = sum(1 for i in INCIDENTS if i["style"] == "page")
    pages_sym = sum(1 for i in INCIDENTS if i["style"] == "page" and i["spec"].get("symptoms"))
    novel = sum(1 for i in INCIDENTS if i["truth"]["novel"])
    outs = sum(1 for i in INCIDENTS if i["outcome"])
    print("incidents=%d novel=%d pages=%d (with symptoms %d) reports=%d outcomes=%d runbooks=%d "
          "migrations=%d contradiction-applies=%d deployments=%d unsafe-nonempty=%d null-runbook=%d events=%d" % (
              n, novel, pages, pages_sym, n - pages, outs, len(RUNBOOKS), len(MIGRATIONS), len(CONTRADICTIONS),
              sum(1 for i in INCIDENTS if "deployment" in i["spec"]),
              sum(1 for i in INCIDENTS if i["truth"]["unsafeRunbooks"]),
              sum(1 for i in INCIDENTS if i["truth"]["runbook"] is None), len(events)))
    for f, ns in fams.items():
        print("family %-16s %s" % (f, " ".join("%04d" % x for x in ns)))


if __name__ == "__main__":
    main()
