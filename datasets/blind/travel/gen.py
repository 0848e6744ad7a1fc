#!/usr/bin/env python3
"""Generate history.jsonl: a fictional incident history of the online travel
agency "Farewind" (everything here is made up).

Standard library only, deterministic: running it twice writes the same bytes.

The history is held as structured data (services, runbooks and their
revisions, migrations, contradictions, failure families with conditions,
incidents and their outcomes). The answer key (`truth`) of every incident is
derived from its family, its condition and the state of the world at the
incident's time; it is never written by hand per incident.
"""

import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"
PREFIX = "tv-"

# ---------------------------------------------------------------------------
# Platform and topology (an edge means "calls")
# ---------------------------------------------------------------------------

TOPOLOGY = [
    ("web-bff", ["flight-search", "hotel-inventory-sync", "search-autocomplete",
                 "booking-service", "checkin-service", "loyalty-ledger"]),
    ("partner-api", ["flight-search", "hotel-inventory-sync", "booking-service"]),
    ("flight-search", ["gds-connector", "airline-connector", "fare-cache"]),
    ("gds-connector", []),
    ("airline-connector", []),
    ("fare-cache", []),
    ("hotel-inventory-sync", []),
    ("search-autocomplete", ["hotel-inventory-sync"]),
    ("booking-service", ["orders-db", "flight-search", "airline-connector", "gds-connector",
                         "hotel-inventory-sync", "payment-handoff", "ticketing-worker",
                         "notification-service", "loyalty-ledger"]),
    ("payment-handoff", ["orders-db"]),
    ("ticketing-worker", ["gds-connector", "airline-connector", "orders-db",
                          "notification-service"]),
    ("checkin-service", ["airline-connector", "orders-db", "notification-service"]),
    ("loyalty-ledger", ["orders-db"]),
    ("notification-service", []),
    ("orders-db", []),
]

NAMESPACE = {
    "web-bff": "edge", "partner-api": "edge",
    "flight-search": "search", "fare-cache": "search", "search-autocomplete": "search",
    "gds-connector": "supply", "airline-connector": "supply",
    "hotel-inventory-sync": "hotels", "booking-service": "booking",
    "payment-handoff": "payments", "ticketing-worker": "fulfilment",
    "checkin-service": "fulfilment", "loyalty-ledger": "loyalty",
    "notification-service": "comms", "orders-db": "data",
}

TEAM = {
    "web-bff": "web", "partner-api": "partners",
    "flight-search": "search", "fare-cache": "search", "search-autocomplete": "search",
    "gds-connector": "supply", "airline-connector": "supply",
    "hotel-inventory-sync": "hotels", "booking-service": "booking",
    "payment-handoff": "payments", "ticketing-worker": "fulfilment",
    "checkin-service": "fulfilment", "loyalty-ledger": "loyalty",
    "notification-service": "comms", "orders-db": "data-platform",
}


def topology_yaml():
    lines = []
    for svc, deps in TOPOLOGY:
        lines.append("%s: {dependsOn: [%s]}" % (svc, ", ".join(deps)))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Runbooks
# ---------------------------------------------------------------------------

def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


GDS_ADMIN = "registry.farewind.internal/ops/gds-admin:2.3"
KUBECTL = "bitnami/kubectl:1.30"
TICKET_ADMIN = "registry.farewind.internal/ops/ticketing-admin:1.7"

RB = {}

RB["gds-recycle-session-pool", 1] = {
    "title": "Sign out orphaned GDS sessions and reset the connector's session pool",
    "services": ["gds-connector", "flight-search", "ticketing-worker"],
    "symptoms": ["timeouts", "error-rate", "missing-results"],
    "steps": [
        step("sign-out-orphaned-sessions", GDS_ADMIN,
             ["gds-admin", "sessions", "signout", "--pool", "$(POOL)", "--idle-over", "120s"],
             ["gds-admin", "sessions", "list", "--pool", "$(POOL)", "--idle-over", "120s"],
             [], "medium", "one GDS session pool (search or ticketing)", 120),
        step("reset-session-pool", KUBECTL,
             ["kubectl", "-n", "supply", "exec", "deploy/gds-connector", "--", "curl", "-sf",
              "-XPOST", "http://localhost:8081/admin/pools/$(POOL)/reset"],
             ["kubectl", "-n", "supply", "exec", "deploy/gds-connector", "--", "curl", "-sf",
              "http://localhost:8081/admin/pools/$(POOL)"],
             [], "medium", "in-flight GDS calls of one pool are retried", 60),
    ],
}

RB["gds-recycle-session-pool", 2] = {
    "title": "Sign out orphaned GDS sessions in batches and reset the connector's session pool",
    "services": ["gds-connector", "flight-search", "ticketing-worker"],
    "symptoms": ["timeouts", "error-rate", "missing-results"],
    "steps": [
        step("sign-out-orphaned-sessions-in-batches", GDS_ADMIN,
             ["gds-admin", "sessions", "signout", "--pool", "$(POOL)", "--idle-over", "120s",
              "--batch-size", "50", "--pause", "30s"],
             ["gds-admin", "sessions", "list", "--pool", "$(POOL)", "--idle-over", "120s"],
             [], "medium", "one GDS session pool (search or ticketing)", 480),
        step("reset-session-pool", KUBECTL,
             ["kubectl", "-n", "supply", "exec", "deploy/gds-connector", "--", "curl", "-sf",
              "-XPOST", "http://localhost:8081/admin/pools/$(POOL)/reset"],
             ["kubectl", "-n", "supply", "exec", "deploy/gds-connector", "--", "curl", "-sf",
              "http://localhost:8081/admin/pools/$(POOL)"],
             [], "medium", "in-flight GDS calls of one pool are retried", 60),
    ],
}

RB["payment-poll-pending-sessions", 1] = {
    "title": "Fetch the PSP status of pending payment sessions and complete paid bookings",
    "services": ["payment-handoff", "booking-service"],
    "symptoms": ["stuck-bookings", "delivery-delay"],
    "steps": [
        step("reconcile-pending-sessions", "registry.farewind.internal/payments/payment-handoff:stable",
             ["/app/bin/psp-reconcile", "--state", "PENDING_PAYMENT", "--older-than", "15m",
              "--apply"],
             ["/app/bin/psp-reconcile", "--state", "PENDING_PAYMENT", "--older-than", "15m",
              "--dry-run"],
             [], "low", "bookings in PENDING_PAYMENT older than 15 minutes", 300),
    ],
}

RB["payment-sync-webhook-secret", 1] = {
    "title": "Load the PSP's current webhook HMAC key into Vault and restart payment-handoff",
    "services": ["payment-handoff"],
    "symptoms": ["401", "stuck-bookings"],
    "steps": [
        step("copy-current-hmac-key", "registry.farewind.internal/payments/psp-cli:3.1",
             ["sh", "-c", "psp-cli webhooks hmac show --merchant $(MERCHANT) --raw | "
              "vault kv put payments/psp/hmac key=-"],
             ["sh", "-c", "psp-cli webhooks hmac fingerprint --merchant $(MERCHANT); "
              "vault kv get -field=fingerprint payments/psp/hmac"],
             ["vault", "kv", "rollback", "-version=$(PREVIOUS_VERSION)", "payments/psp/hmac"],
             "medium", "verification of all incoming PSP notifications", 60),
        step("restart-payment-handoff", KUBECTL,
             ["kubectl", "-n", "payments", "rollout", "restart", "deploy/payment-handoff"],
             ["kubectl", "-n", "payments", "rollout", "status", "deploy/payment-handoff"],
             [], "low", "payment-handoff pods, one at a time", 120),
    ],
}

RB["hotel-sync-scale-workers", 1] = {
    "title": "Add hotel-inventory-sync workers to drain an availability backlog",
    "services": ["hotel-inventory-sync"],
    "symptoms": ["queue-backlog", "stale-data"],
    "steps": [
        step("scale-workers", KUBECTL,
             ["kubectl", "-n", "hotels", "scale", "deploy/hotel-sync-worker",
              "--replicas=$(REPLICAS)"],
             ["kubectl", "-n", "hotels", "get", "deploy/hotel-sync-worker", "-o", "wide"],
             ["kubectl", "-n", "hotels", "scale", "deploy/hotel-sync-worker", "--replicas=12"],
             "low", "hotel-sync worker pool", 90),
    ],
}

RB["hotel-sync-scale-workers", 2] = {
    "title": "Add hotel-inventory-sync workers to drain an availability backlog (only when the supplier is not throttling)",
    "services": ["hotel-inventory-sync"],
    "symptoms": ["queue-backlog", "stale-data"],
    "steps": [
        step("check-supplier-throttling", "registry.farewind.internal/hotels/sync-admin:1.4",
             ["sync-admin", "suppliers", "throttle-rate", "--supplier", "$(SUPPLIER)",
              "--window", "15m", "--fail-above", "0.05"],
             ["sync-admin", "suppliers", "throttle-rate", "--supplier", "$(SUPPLIER)",
              "--window", "15m"],
             [], "low", "read only", 20),
        step("scale-workers", KUBECTL,
             ["kubectl", "-n", "hotels", "scale", "deploy/hotel-sync-worker",
              "--replicas=$(REPLICAS)"],
             ["kubectl", "-n", "hotels", "get", "deploy/hotel-sync-worker", "-o", "wide"],
             ["kubectl", "-n", "hotels", "scale", "deploy/hotel-sync-worker", "--replicas=12"],
             "low", "hotel-sync worker pool", 90),
    ],
}

RB["hotel-sync-lower-supplier-concurrency", 1] = {
    "title": "Lower one supplier's call concurrency and honour Retry-After in hotel-inventory-sync",
    "services": ["hotel-inventory-sync"],
    "symptoms": ["queue-backlog", "429", "stale-data"],
    "steps": [
        step("set-supplier-concurrency", KUBECTL,
             ["kubectl", "-n", "hotels", "patch", "configmap", "hotel-sync-suppliers",
              "--type", "merge", "-p",
              '{"data":{"$(SUPPLIER).concurrency":"$(CONCURRENCY)","$(SUPPLIER).honourRetryAfter":"true"}}'],
             ["kubectl", "-n", "hotels", "get", "configmap", "hotel-sync-suppliers", "-o", "yaml"],
             ["kubectl", "-n", "hotels", "patch", "configmap", "hotel-sync-suppliers",
              "--type", "merge", "-p",
              '{"data":{"$(SUPPLIER).concurrency":"$(PREVIOUS_CONCURRENCY)"}}'],
             "low", "calls to one supplier", 30),
        step("reload-workers", KUBECTL,
             ["kubectl", "-n", "hotels", "rollout", "restart", "deploy/hotel-sync-worker"],
             ["kubectl", "-n", "hotels", "rollout", "status", "deploy/hotel-sync-worker"],
             [], "low", "hotel-sync worker pool, rolling", 180),
    ],
}

RB["checkin-recycle-pass-renderer", 1] = {
    "title": "Restart the boarding-pass renderer sidecars of checkin-service one pod at a time",
    "services": ["checkin-service"],
    "symptoms": ["5xx", "pid-exhaustion"],
    "steps": [
        step("restart-renderer-pods", KUBECTL,
             ["kubectl", "-n", "fulfilment", "rollout", "restart", "deploy/checkin-service"],
             ["kubectl", "-n", "fulfilment", "exec", "deploy/checkin-service", "-c",
              "pass-renderer", "--", "sh", "-c", "ps -eo stat | grep -c '^Z'"],
             [], "low", "checkin-service pods, rolling with maxUnavailable 1", 240),
    ],
}

RB["deploy-rollout-undo", 1] = {
    "title": "Return a service's Deployment to its previous ReplicaSet revision",
    "services": ["flight-search", "booking-service", "checkin-service", "partner-api",
                 "web-bff", "payment-handoff", "loyalty-ledger"],
    "symptoms": ["5xx", "error-rate", "latency-spike"],
    "steps": [
        step("rollout-undo", KUBECTL,
             ["kubectl", "-n", "$(NAMESPACE)", "rollout", "undo", "deploy/$(SERVICE)"],
             ["kubectl", "-n", "$(NAMESPACE)", "rollout", "history", "deploy/$(SERVICE)"],
             ["kubectl", "-n", "$(NAMESPACE)", "rollout", "undo", "deploy/$(SERVICE)",
              "--to-revision=$(CURRENT_REVISION)"],
             "medium", "one service", 180),
    ],
}

RB["partner-api-cap-affiliate-key", 1] = {
    "title": "Cap the request rate of one affiliate API key on partner-api",
    "services": ["partner-api", "flight-search", "airline-connector"],
    "symptoms": ["429", "missing-results", "latency-spike"],
    "steps": [
        step("set-key-rate-limit", "registry.farewind.internal/partners/partner-admin:2.0",
             ["partner-admin", "keys", "set-limit", "$(API_KEY)", "--rps", "$(RPS)"],
             ["partner-admin", "keys", "usage", "$(API_KEY)", "--last", "1h"],
             ["partner-admin", "keys", "set-limit", "$(API_KEY)", "--rps", "$(PREVIOUS_RPS)"],
             "low", "one affiliate", 20),
    ],
}

RB["fare-cache-expire-ttl-less-keys", 1] = {
    "title": "Give a TTL to fare-cache keys written without one, to get Redis under maxmemory",
    "services": ["fare-cache", "flight-search"],
    "symptoms": ["memory-pressure", "latency-spike", "timeouts"],
    "steps": [
        step("expire-keys-without-ttl", "registry.farewind.internal/search/fare-cache-tools:1.2",
             ["fare-cache-tools", "expire-missing-ttl", "--host", "fare-cache", "--pattern",
              "$(PATTERN)", "--ttl", "21600", "--scan-count", "1000"],
             ["fare-cache-tools", "expire-missing-ttl", "--host", "fare-cache", "--pattern",
              "$(PATTERN)", "--count-only"],
             [], "low", "keys matching one pattern on fare-cache", 600),
        step("check-memory", "redis:7.2",
             ["redis-cli", "-h", "fare-cache", "info", "memory"],
             ["redis-cli", "-h", "fare-cache", "info", "memory"],
             [], "low", "read only", 5),
    ],
}

RB["ticketing-park-poison-message", 1] = {
    "title": "Move the head message of a carrier's RabbitMQ ticketing queue to ticketing.parked",
    "services": ["ticketing-worker"],
    "symptoms": ["queue-backlog", "stuck-bookings"],
    "steps": [
        step("park-head-message", TICKET_ADMIN,
             ["ticketing-admin", "rabbit", "move-head", "--vhost", "ticketing", "--queue",
              "ticketing.issue.$(CARRIER)", "--to", "ticketing.parked"],
             ["rabbitmqadmin", "-V", "ticketing", "get", "queue=ticketing.issue.$(CARRIER)",
              "ackmode=reject_requeue_true", "count=1"],
             ["ticketing-admin", "rabbit", "move", "--vhost", "ticketing", "--from",
              "ticketing.parked", "--to", "ticketing.issue.$(CARRIER)", "--message-id",
              "$(MESSAGE_ID)"],
             "low", "one booking of one carrier", 30),
    ],
}

RB["ticketing-sqs-dlq-poison-message", 1] = {
    "title": "Move the blocking head message of a carrier's SQS FIFO message group to the ticketing DLQ",
    "services": ["ticketing-worker"],
    "symptoms": ["queue-backlog", "stuck-bookings"],
    "steps": [
        step("move-group-head-to-dlq", TICKET_ADMIN,
             ["ticketing-admin", "sqs", "move-group-head", "--queue", "ticketing-issue.fifo",
              "--group", "$(CARRIER)", "--to", "ticketing-issue-dlq.fifo", "--reason",
              "$(REASON)"],
             ["ticketing-admin", "sqs", "peek-group-head", "--queue", "ticketing-issue.fifo",
              "--group", "$(CARRIER)"],
             ["ticketing-admin", "sqs", "redrive-message", "--from", "ticketing-issue-dlq.fifo",
              "--to", "ticketing-issue.fifo", "--message-id", "$(MESSAGE_ID)"],
             "low", "one booking of one carrier", 30),
    ],
}

RB["orders-db-patroni-restore-leader", 1] = {
    "title": "Get the orders-pg Patroni cluster a leader again when etcd is slow",
    "services": ["orders-db", "booking-service", "loyalty-ledger", "payment-handoff"],
    "symptoms": ["read-only", "5xx"],
    "steps": [
        step("check-etcd", "quay.io/coreos/etcd:v3.5.15",
             ["etcdctl", "--endpoints=$(ETCD_ENDPOINTS)", "endpoint", "status", "-w", "table"],
             ["etcdctl", "--endpoints=$(ETCD_ENDPOINTS)", "endpoint", "health"],
             [], "low", "read only", 10),
        step("move-etcd-leader", "quay.io/coreos/etcd:v3.5.15",
             ["etcdctl", "--endpoints=$(ETCD_ENDPOINTS)", "move-leader", "$(HEALTHY_MEMBER_ID)"],
             ["etcdctl", "--endpoints=$(ETCD_ENDPOINTS)", "member", "list", "-w", "table"],
             [], "medium", "the Patroni DCS", 30),
        step("patroni-failover", "registry.farewind.internal/data/patroni-tools:3.3",
             ["patronictl", "-c", "/etc/patroni/orders-pg.yml", "failover", "orders-pg",
              "--candidate", "$(CANDIDATE)", "--force"],
             ["patronictl", "-c", "/etc/patroni/orders-pg.yml", "list", "orders-pg"],
             [], "high", "all writes to orders-db (orders, payments, loyalty)", 90),
    ],
}

RB["orders-db-recycle-client-pools", 1] = {
    "title": "Restart the orders-db clients so their connection pools reach the current Aurora writer",
    "services": ["orders-db", "booking-service", "loyalty-ledger", "payment-handoff"],
    "symptoms": ["read-only", "5xx"],
    "steps": [
        step("check-writer-endpoint", "postgres:16",
             ["psql", "-h", "orders-aurora.cluster-farewind.eu-west-1.rds.amazonaws.com",
              "-U", "ops_ro", "-d", "orders", "-Atc", "select pg_is_in_recovery()"],
             ["psql", "-h", "orders-aurora.cluster-farewind.eu-west-1.rds.amazonaws.com",
              "-U", "ops_ro", "-d", "orders", "-Atc", "select pg_is_in_recovery()"],
             [], "low", "read only", 5),
        step("restart-booking-service", KUBECTL,
             ["kubectl", "-n", "booking", "rollout", "restart", "deploy/booking-service"],
             ["kubectl", "-n", "booking", "rollout", "status", "deploy/booking-service"],
             [], "medium", "booking-service pods, rolling", 240),
        step("restart-payment-handoff", KUBECTL,
             ["kubectl", "-n", "payments", "rollout", "restart", "deploy/payment-handoff"],
             ["kubectl", "-n", "payments", "rollout", "status", "deploy/payment-handoff"],
             [], "low", "payment-handoff pods, rolling", 120),
        step("restart-loyalty-ledger", KUBECTL,
             ["kubectl", "-n", "loyalty", "rollout", "restart", "deploy/loyalty-ledger"],
             ["kubectl", "-n", "loyalty", "rollout", "status", "deploy/loyalty-ledger"],
             [], "low", "loyalty-ledger pods, rolling", 120),
    ],
}

RB["autocomplete-repoint-index-alias", 1] = {
    "title": "Point the destinations alias back to the last complete index and hold the nightly build",
    "services": ["search-autocomplete"],
    "symptoms": ["zero-results", "stale-data"],
    "steps": [
        step("move-alias", "curlimages/curl:8.8.0",
             ["curl", "-sf", "-XPOST", "http://search-es.search:9200/_aliases", "-H",
              "Content-Type: application/json", "-d",
              '{"actions":[{"remove":{"index":"$(BAD_INDEX)","alias":"destinations"}},'
              '{"add":{"index":"$(GOOD_INDEX)","alias":"destinations"}}]}'],
             ["curl", "-sf", "http://search-es.search:9200/_cat/indices/destinations-*?v&h=index,docs.count,creation.date.string"],
             ["curl", "-sf", "-XPOST", "http://search-es.search:9200/_aliases", "-H",
              "Content-Type: application/json", "-d",
              '{"actions":[{"remove":{"index":"$(GOOD_INDEX)","alias":"destinations"}},'
              '{"add":{"index":"$(BAD_INDEX)","alias":"destinations"}}]}'],
             "low", "all autocomplete queries", 10),
        step("suspend-nightly-build", KUBECTL,
             ["kubectl", "-n", "search", "patch", "cronjob", "destinations-build", "-p",
              '{"spec":{"suspend":true}}'],
             ["kubectl", "-n", "search", "get", "cronjob", "destinations-build"],
             ["kubectl", "-n", "search", "patch", "cronjob", "destinations-build", "-p",
              '{"spec":{"suspend":false}}'],
             "low", "the next nightly index build", 5),
    ],
}

RB["notifications-switch-email-provider", 1] = {
    "title": "Send transactional e-mail through the backup provider Sendbridge",
    "services": ["notification-service"],
    "symptoms": ["email-bounce", "delivery-delay"],
    "steps": [
        step("check-backup-provider", "registry.farewind.internal/comms/notify-admin:1.9",
             ["notify-admin", "provider", "check", "sendbridge", "--dkim", "--quota"],
             ["notify-admin", "provider", "check", "sendbridge", "--dkim", "--quota"],
             [], "low", "read only", 15),
        step("switch-provider", KUBECTL,
             ["kubectl", "-n", "comms", "set", "env", "deploy/notification-service",
              "EMAIL_PROVIDER_TRANSACTIONAL=sendbridge"],
             ["kubectl", "-n", "comms", "get", "deploy/notification-service", "-o",
              "jsonpath={.spec.template.spec.containers[0].env}"],
             ["kubectl", "-n", "comms", "set", "env", "deploy/notification-service",
              "EMAIL_PROVIDER_TRANSACTIONAL=postlane"],
             "medium", "all transactional e-mail", 120),
    ],
}

# When each runbook (revision) is applied. The catalog arrives on 2024-11-01;
# the others are written after a failure was first fixed by hand, or ahead of
# a migration.
RUNBOOK_APPLIES = [
    ("2024-11-01T09:00:00Z", "gds-recycle-session-pool", 1),
    ("2024-11-01T09:00:00Z", "payment-poll-pending-sessions", 1),
    ("2024-11-01T09:00:00Z", "hotel-sync-scale-workers", 1),
    ("2024-11-01T09:00:00Z", "checkin-recycle-pass-renderer", 1),
    ("2024-11-01T09:00:00Z", "deploy-rollout-undo", 1),
    ("2024-11-01T09:00:00Z", "partner-api-cap-affiliate-key", 1),
    ("2024-11-28T11:00:00Z", "autocomplete-repoint-index-alias", 1),
    ("2024-12-02T10:30:00Z", "ticketing-park-poison-message", 1),
    ("2024-12-11T15:00:00Z", "notifications-switch-email-provider", 1),
    ("2024-12-16T10:00:00Z", "fare-cache-expire-ttl-less-keys", 1),
    ("2024-12-23T09:30:00Z", "orders-db-patroni-restore-leader", 1),
    ("2024-12-30T10:00:00Z", "hotel-sync-lower-supplier-concurrency", 1),
    ("2025-01-13T14:00:00Z", "payment-sync-webhook-secret", 1),
    ("2025-01-20T09:00:00Z", "gds-recycle-session-pool", 2),
    ("2025-02-03T10:05:00Z", "hotel-sync-scale-workers", 2),
    ("2025-02-19T16:00:00Z", "ticketing-sqs-dlq-poison-message", 1),
    ("2025-06-10T11:00:00Z", "orders-db-recycle-client-pools", 1),
]

# ---------------------------------------------------------------------------
# Architecture migrations
# ---------------------------------------------------------------------------

MIGRATIONS = [
    {"at": "2025-02-22T06:00:00Z", "name": "ticketing-queue-rabbitmq-to-sqs",
     "spec": {"targetService": "ticketing-worker", "migrationDate": "2025-02-22",
              "oldArch": "Self-hosted RabbitMQ 3.12 on VMs, one quorum queue per carrier "
                         "(ticketing.issue.<carrier>) with single active consumer, parked "
                         "messages in ticketing.parked",
              "newArch": "Amazon SQS FIFO queue ticketing-issue.fifo, one message group per "
                         "carrier, redrive to ticketing-issue-dlq.fifo after 50 receives",
              "impactedRunbooks": ["ticketing-park-poison-message"],
              "impactedFixKeywords": ["rabbitmqadmin", "ticketing.parked",
                                      "move the head message of ticketing.issue"],
              "confidenceDeduction": 30}},
    {"at": "2025-05-17T05:00:00Z", "name": "orders-db-patroni-to-aurora",
     "spec": {"targetService": "orders-db", "migrationDate": "2025-05-17",
              "oldArch": "PostgreSQL 15 on three VMs managed by Patroni with an etcd DCS "
                         "and a keepalived VIP",
              "newArch": "Amazon Aurora PostgreSQL 15, one writer and two readers, clients "
                         "connect through the cluster DNS endpoint",
              "impactedRunbooks": ["orders-db-patroni-restore-leader"],
              "impactedFixKeywords": ["patronictl", "etcdctl move-leader",
                                      "patroni failover"],
              "confidenceDeduction": 35}},
]

# ---------------------------------------------------------------------------
# Failure families. A family is one failure; a contradiction family has two
# conditions that call for different fixes. `fix` says which runbook is right
# in each era (before/after the family's migration); the right runbook of an
# incident is that runbook if it has been applied by the incident's time,
# else null.
# ---------------------------------------------------------------------------

FAMILIES = {
    "GDS": {"about": "gds-connector session pool exhausted by orphaned GDS sessions",
            "conditions": {"-": {"fix": {"all": "gds-recycle-session-pool"}}}},
    "FARE": {"about": "fare-cache at maxmemory (noeviction) from keys written without TTL; "
                      "every search misses and floods the GDS",
             "conditions": {"-": {"fix": {"all": "fare-cache-expire-ttl-less-keys"}}}},
    "PSP": {"about": "bookings stuck in PENDING_PAYMENT because PSP notifications do not land",
            "conditions": {
                "delay": {"fix": {"all": "payment-poll-pending-sessions"},
                          "about": "PSP delivers late; our endpoint receives nothing"},
                "secret": {"fix": {"all": "payment-sync-webhook-secret"},
                           "about": "HMAC key changed; our endpoint answers 401"}}},
    "TKT": {"about": "one carrier's ticketing blocked by a poison booking at the head of "
                     "its queue / message group",
            "migration": "ticketing-queue-rabbitmq-to-sqs",
            "conditions": {"-": {"fix": {"pre": "ticketing-park-poison-message",
                                         "post": "ticketing-sqs-dlq-poison-message"}}}},
    "RO": {"about": "orders-db writes fail with 'read-only transaction'",
           "migration": "orders-db-patroni-to-aurora",
           "conditions": {"-": {"fix": {"pre": "orders-db-patroni-restore-leader",
                                        "post": "orders-db-recycle-client-pools"}}}},
    "HOTEL": {"about": "hotel-inventory-sync availability backlog",
              "conditions": {
                  "surge": {"fix": {"all": "hotel-sync-scale-workers"},
                            "about": "supplier full refresh, supplier healthy, workers CPU-bound"},
                  "throttle": {"fix": {"all": "hotel-sync-lower-supplier-concurrency"},
                               "about": "supplier answers 429 / Retry-After"}}},
    "ALIAS": {"about": "destinations alias swapped to an incomplete index after the nightly build",
              "conditions": {"-": {"fix": {"all": "autocomplete-repoint-index-alias"}}}},
    "MAIL": {"about": "primary e-mail provider pauses or throttles transactional sending",
             "conditions": {"-": {"fix": {"all": "notifications-switch-email-provider"}}}},
    "PASS": {"about": "boarding-pass renderer sidecars out of pids (zombie Chromium)",
             "conditions": {"-": {"fix": {"all": "checkin-recycle-pass-renderer"}}}},
    # one-offs
    "X-NDC": {"about": "affiliate scraper burns airline NDC quotas (one-off)",
              "conditions": {"-": {"fix": {"all": "partner-api-cap-affiliate-key"}}}},
    "X-REL": {"about": "booking-service 7.14.0 breaks bookings with infants (one-off)",
              "conditions": {"-": {"fix": {"all": "deploy-rollout-undo"}}}},
    "X-BCBP": {"about": "Iberia DCS returns a new boarding-pass barcode version (one-off)",
               "conditions": {"-": {"fix": {"all": None}}}},
}

# ---------------------------------------------------------------------------
# Incidents. Keys (G1, P2, ...) are internal; names tv-NNNN are given in time
# order. `{KEY}` in outcome text is replaced by that incident's name.
# ---------------------------------------------------------------------------

INCIDENTS = []


def page(key, fam, cond, at, lead, service, alert, severity, desc, symptoms=(),
         errors=(), labels=None, deployment=None, outcome=None, repage_of=None,
         region="eu-west-1"):
    ns = NAMESPACE[service]
    lab = {"source": "alertmanager", "alertname": alert, "severity": severity,
           "namespace": ns, "service": service, "team": TEAM[service],
           "cluster": "prod-" + {"eu-west-1": "euw1", "eu-central-1": "euc1"}[region],
           "region": region}
    if labels:
        lab.update(labels)
    INCIDENTS.append({
        "key": key, "family": fam, "cond": cond, "at": at, "lead": lead, "style": "page",
        "service": service, "severity": severity,
        "title": "[FIRING:1] %s (%s %s)" % (alert, service, ns),
        "description": desc, "symptoms": list(symptoms), "errors": list(errors),
        "labels": lab, "deployment": deployment, "outcome": outcome, "repage_of": repage_of})


def human(key, fam, cond, at, lead, service, severity, title, desc, symptoms=(),
          errors=(), source="slack", reporter="oncall", labels=None, deployment=None,
          outcome=None, repage_of=None, region="eu-west-1"):
    lab = {"source": source, "reporter": reporter, "team": TEAM[service], "region": region}
    if labels:
        lab.update(labels)
    INCIDENTS.append({
        "key": key, "family": fam, "cond": cond, "at": at, "lead": lead, "style": "human",
        "service": service, "severity": severity, "title": title, "description": desc,
        "symptoms": list(symptoms), "errors": list(errors), "labels": lab,
        "deployment": deployment, "outcome": outcome, "repage_of": repage_of})


def out(at, root, summary, actions, runbook, by):
    """actions: list of (text, result, runbook-or-None)."""
    return {"at": at, "rootCause": root, "summary": summary, "actions": actions,
            "runbook": runbook, "by": by}


def rb(name, result, note=""):
    text = "run runbook " + name + ((" " + note) if note else "")
    return (text, result, name)


def manual(text, result):
    return (text, result, None)


# --- November 2024 ---------------------------------------------------------

page("G1", "GDS", "-", "2024-11-07T06:42:00Z", 11, "flight-search",
     "FlightSearchSupplierTimeouts", "critical",
     "GDS leg of flight search timing out for 18% of requests over 10m (threshold 5%)",
     symptoms=["timeouts"], labels={"supplier": "gds"},
     outcome=out("2024-11-07T07:35:00Z",
                 "gds-connector's search session pool was full of GDS sessions orphaned after "
                 "client timeouts; the GDS refused new ones with 'Session limit exceeded'",
                 "Morning peak. The connector's 8 s read timeout was shorter than the GDS's slow "
                 "availability answers, so abandoned sessions were never signed out and the "
                 "400-session quota filled. The catalog procedure signed out 361 orphaned "
                 "sessions and reset the pool; GDS timeouts were under 1% six minutes later.",
                 [rb("gds-recycle-session-pool", "succeeded", "for pool search")],
                 "gds-recycle-session-pool", "m.okafor"))

page("H1", "HOTEL", "surge", "2024-11-13T03:18:00Z", 23, "hotel-inventory-sync",
     "HotelSyncLagHigh", "high",
     "Availability update backlog 2.4M messages, oldest 52m (threshold 15m)",
     symptoms=["queue-backlog"],
     outcome=out("2024-11-13T05:10:00Z",
                 "supplier Bedwise sent a full inventory refresh (about 9M rate and availability "
                 "rows) instead of the nightly delta; the sync workers were CPU-bound while the "
                 "Bedwise API stayed healthy",
                 "No 429s or slow calls to Bedwise, all 12 workers at their CPU limit. Scaling "
                 "the worker deployment from 12 to 36 drained the backlog in 70 minutes; scaled "
                 "back at 07:00.",
                 [rb("hotel-sync-scale-workers", "succeeded", "with 36 replicas")],
                 "hotel-sync-scale-workers", "p.iyer"))

human("P1", "PSP", "delay", "2024-11-19T14:05:00Z", 25, "booking-service", "high",
      "Bookings stuck in PENDING_PAYMENT since ~13:30",
      "Support has 40+ chats from customers who paid (card charged, 3DS done) but the trip "
      "page still says 'awaiting payment'. PENDING_PAYMENT older than 15 min is at 318 and "
      "climbing. payment-handoff has received no notifications at all since 13:27, not even "
      "failing ones. The PSP status page mentions delayed notifications for EU merchants.",
      symptoms=["stuck-bookings", "customer-complaints", "delivery-delay"],
      errors=["payment-handoff: no PSP notification received in 35m (last 13:27:04Z)"],
      reporter="oncall-booking",
      outcome=out("2024-11-19T15:20:00Z",
                  "PSP-side backlog in webhook delivery (their incident); our endpoint was "
                  "healthy and simply received nothing",
                  "The PSP confirmed a queue backlog in their notification service. Fetching "
                  "the status of 402 pending sessions from the PSP API completed 377 bookings "
                  "(25 were really abandoned). Notifications resumed at 15:02.",
                  [rb("payment-poll-pending-sessions", "succeeded")],
                  "payment-poll-pending-sessions", "a.ferreira"))

human("A1", "ALIAS", "-", "2024-11-21T07:55:00Z", 25, "web-bff", "high",
      "Destination autocomplete returns nothing for big cities",
      "Typing 'Lisb', 'Barc' or 'Rome' in the search box gives an empty dropdown on web and "
      "app. Small places still show up. Started around 06:00 going by RUM. Nothing deployed "
      "on web-bff since Tuesday.",
      symptoms=["zero-results", "customer-complaints"], reporter="web-oncall",
      outcome=out("2024-11-27T10:00:00Z",
                  "the nightly destinations index build ran while hotel-inventory-sync's content "
                  "export returned a truncated file (80k of 1.1M documents) and still moved the "
                  "destinations alias to the incomplete index",
                  "A fresh build at 08:10 read the same truncated export and changed nothing. At "
                  "08:40 the destinations alias was pointed back to destinations-20241120 by hand "
                  "with the _aliases API; zero-result rate fell from 38% to 2%. Confirmed at the "
                  "review on the 27th; the alias move became a runbook the day after.",
                  [manual("trigger a fresh destinations index build", "failed"),
                   manual("point the destinations alias back to destinations-20241120 by hand",
                          "succeeded")],
                  None, "l.moreau"))

human("T1", "TKT", "-", "2024-11-26T05:30:00Z", 35, "booking-service", "high",
      "EK bookings stuck pending",
      "Since about 04:00, none issued. Other carriers look normal.",
      symptoms=["stuck-bookings"], source="support-escalation", reporter="support-lead",
      outcome=out("2024-11-26T08:05:00Z",
                  "a booking whose passenger name exceeded the GDS name field was rejected with "
                  "an error the worker treats as retryable, so it was requeued forever at the "
                  "head of the single-active-consumer queue ticketing.issue.EK",
                  "ticketing-worker logged 'NAME FIELD TOO LONG' for the same PNR 2,900 times. "
                  "Restarting the workers did nothing (the same message came back first). The "
                  "message was moved by hand with rabbitmqadmin to a holding queue and the PNR "
                  "handed to the agent desk; 212 EK tickets were issued within 20 minutes.",
                  [manual("restart ticketing-worker pods", "failed"),
                   manual("move the head message of ticketing.issue.EK to a holding queue by hand",
                          "succeeded")],
                  None, "s.brandt"))

page("PR1", "PASS", "-", "2024-11-28T18:20:00Z", 12, "checkin-service",
     "BoardingPassRenderErrors", "high", "Boarding pass render failures 23% over 10m",
     symptoms=["5xx"],
     outcome=out("2024-11-28T18:55:00Z",
                 "headless Chromium in the pass-renderer sidecars leaked zombie processes until "
                 "the pods hit their pids limit (spawn EAGAIN)",
                 "Restarting the renderer pods one at a time with the catalog procedure brought "
                 "failures to zero by 18:48.",
                 [rb("checkin-recycle-pass-renderer", "succeeded")],
                 "checkin-recycle-pass-renderer", "k.nakamura"))

# --- December 2024 ---------------------------------------------------------

human("G2", "GDS", "-", "2024-12-03T09:12:00Z", 22, "ticketing-worker", "high",
      "Ticket issuance failing with 'no GDS session available'",
      "ticketing-worker retries are piling up: about a third of issue attempts fail with "
      "NO_SESSION_AVAILABLE from gds-connector. Flight search feels slower too. The GDS quota "
      "dashboard says 400/400 sessions in use but there are only ~90 requests in flight.",
      symptoms=["error-rate", "queue-backlog", "latency-spike"],
      errors=["GdsClientException: NO_SESSION_AVAILABLE (pool=ticketing, waited 30000ms)",
              "SOAP Fault: 11|Session limit exceeded"],
      reporter="oncall-fulfilment",
      outcome=out("2024-12-03T10:02:00Z",
                  "GDS slowdown overnight left about 310 idle sessions that were never signed "
                  "out; both connector pools were at the quota",
                  "Signed out the orphaned sessions of both pools and reset them; retries "
                  "drained by 09:55.",
                  [rb("gds-recycle-session-pool", "succeeded", "for pools search and ticketing")],
                  "gds-recycle-session-pool", "r.haddad"))

human("N1", "MAIL", "-", "2024-12-05T16:40:00Z", 50, "notification-service", "high",
      "Customers not receiving booking confirmation emails",
      "From customer support: since mid-afternoon customers say they got no confirmation or "
      "e-ticket email. We checked 10 bookings: all ticketed fine, ticket numbers are in the "
      "GDS, the email never arrived. notification-service logs are full of errors from the "
      "mail provider.",
      symptoms=["email-bounce", "customer-complaints"],
      errors=["Postlane API 403 account_sending_paused (reason: bounce_rate)"],
      source="support-escalation", reporter="support-lead",
      outcome=out("2024-12-06T11:30:00Z",
                  "Postlane paused the transactional account after marketing imported a stale "
                  "list into the same account and the bounce rate reached 7.9%",
                  "Retrying the notification queue just produced more 403s. Transactional mail "
                  "was moved to the backup provider Sendbridge by hand (config flag, DKIM "
                  "check) at 18:10; 14k queued emails went out. Postlane lifted the pause the "
                  "next morning after marketing moved to its own account.",
                  [manual("retry the notification queue", "failed"),
                   manual("switch transactional email to Sendbridge by hand", "succeeded")],
                  None, "e.rossi"))

page("F1", "FARE", "-", "2024-12-10T19:05:00Z", 17, "flight-search",
     "FlightSearchSupplierTimeouts", "critical",
     "GDS leg of flight search timing out for 27% of requests over 10m (threshold 5%)",
     symptoms=["timeouts"], labels={"supplier": "gds"},
     deployment={"id": "deploy-8841", "revision": "flight-search 2024.12.10-2",
                 "environment": "production", "minutesSinceDeploy": 41},
     outcome=out("2024-12-11T01:20:00Z",
                 "fare-cache reached maxmemory with policy noeviction: the calendar-fares "
                 "feature (shipped 2024-12-03) wrote cal:* lowest-fare keys with no TTL; once "
                 "memory was full every SET failed with OOM, every search missed the cache and "
                 "went to the GDS, and the GDS session quota ran out",
                 "The GDS pool looked guilty first: signing out sessions freed the pool, which "
                 "was full again in four minutes. The 18:24 flight-search deploy was undone: no "
                 "change, the keys were already in Redis. fare-cache INFO showed used_memory at "
                 "maxmemory and writes failing with 'OOM command not allowed'; 11.8M cal:* keys "
                 "had TTL -1. A SCAN script set a 6 h TTL on them by hand; memory fell to 61%, "
                 "cache hit ratio back to 84%, GDS sessions normal by 00:50.",
                 [rb("gds-recycle-session-pool", "failed"),
                  rb("deploy-rollout-undo", "failed", "for flight-search"),
                  manual("set a 6h TTL on cal:* keys without TTL with a SCAN script by hand",
                         "succeeded")],
                 None, "m.okafor"))

page("R1", "RO", "-", "2024-12-17T02:48:00Z", 7, "orders-db", "PatroniClusterNoLeader",
     "critical", "Patroni cluster orders-pg has had no leader for 5m",
     symptoms=["read-only"],
     outcome=out("2024-12-17T04:30:00Z",
                 "etcd (the Patroni DCS) had fsync latency above 1 s during the nightly VM "
                 "snapshot; the leader could not renew its lock within the 30 s TTL and demoted "
                 "itself, and no replica could take the lock while etcd stayed slow",
                 "Bookings, payment results and loyalty postings failed with 'cannot execute "
                 "INSERT in a read-only transaction' for 68 minutes. Restarting Patroni on "
                 "orders-pg-1 did not help. Moved etcd leadership off the snapshotting host, "
                 "waited for etcd health, then patronictl failover to orders-pg-2; writes "
                 "resumed 03:56. Snapshots moved out of the etcd hosts' window.",
                 [manual("restart Patroni on orders-pg-1", "failed"),
                  manual("move etcd leadership away from etcd-3 and patronictl failover to "
                         "orders-pg-2 by hand", "succeeded")],
                 None, "d.kowalski"))

human("H2", "HOTEL", "throttle", "2024-12-19T10:25:00Z", 45, "hotel-inventory-sync", "high",
      "hotel sync behind again, StayNet updates lagging",
      "Backlog for StayNet is 900k and growing since ~9:40. Workers aren't busy (CPU 15%) but "
      "supplier calls are slow to come back. Lots of HTTP 429 with Retry-After: 60 in the "
      "worker logs. Hotel bookings on StayNet properties are starting to fail at price check.",
      symptoms=["queue-backlog", "429", "stale-data"],
      errors=["StayNetClient: HTTP 429 Too Many Requests (Retry-After: 60) GET /v3/availability/delta",
              "retry budget exhausted for supplier=staynet"],
      reporter="hotels-oncall",
      outcome=out("2024-12-20T09:00:00Z",
                  "StayNet started enforcing a per-partner limit of 50 req/s on 2024-12-19; 12 "
                  "workers x 8 concurrent calls sent about 200 req/s, most got 429, and retries "
                  "that ignored Retry-After kept us throttled",
                  "On-call first scaled the workers to 36 as in November: the 429 share went "
                  "from 60% to 93% and StayNet blocked our key for 15 minutes. Scaled back to 12, "
                  "set StayNet concurrency to 4 and turned on Retry-After handling by hand "
                  "(config map plus restart). Backlog drained by 14:10. Confirmed next morning "
                  "with StayNet's account manager.",
                  [rb("hotel-sync-scale-workers", "failed", "with 36 replicas"),
                   manual("set StayNet concurrency to 4 and honour Retry-After by hand",
                          "succeeded")],
                  None, "p.iyer"))

# --- January 2025 ----------------------------------------------------------

page("A2", "ALIAS", "-", "2025-01-02T04:10:00Z", 8, "search-autocomplete",
     "AutocompleteZeroResultRateHigh", "high",
     "Zero-result rate 41% for prefixes of 3+ chars over 15m (baseline 3%)",
     symptoms=["zero-results"],
     outcome=out("2025-01-02T04:45:00Z",
                 "the nightly build swapped the alias to an index made from a partial export "
                 "(the hotel content export timed out after 3 of 14 chunks)",
                 "Alias pointed back to destinations-20250101 and the build held; zero-result "
                 "rate 2.6% at 04:30. Export timeout raised before the next build.",
                 [rb("autocomplete-repoint-index-alias", "succeeded")],
                 "autocomplete-repoint-index-alias", "l.moreau"))

page("T2", "TKT", "-", "2025-01-06T13:22:00Z", 17, "ticketing-worker",
     "TicketingQueueHeadAgeHigh", "high",
     "Oldest message in ticketing.issue.TK is 47m old (threshold 20m)",
     symptoms=["queue-backlog"], labels={"queue": "ticketing.issue.TK"},
     outcome=out("2025-01-06T14:05:00Z",
                 "an infant passenger without a date of birth: the GDS answered 'INFANT DOB "
                 "REQUIRED', which the worker classed as retryable, so the message kept coming "
                 "back to the head of ticketing.issue.TK",
                 "Moved the head message to ticketing.parked; 96 TK tickets issued in 9 "
                 "minutes; the agent desk completed the infant's details.",
                 [rb("ticketing-park-poison-message", "succeeded", "for carrier TK")],
                 "ticketing-park-poison-message", "s.brandt"))

human("P2", "PSP", "secret", "2025-01-09T11:48:00Z", 38, "payment-handoff", "high",
      "payment confirmations not arriving - webhook endpoint returning 401",
      "Bookings piling up in PENDING_PAYMENT (about 260 now). Unlike the November one, the PSP "
      "IS calling us: every notification since 11:02 is rejected by our endpoint with 401 "
      "signature mismatch. PSP dashboard shows deliveries 'failed, will retry'. Finance says "
      "they changed something in the PSP customer area this morning.",
      symptoms=["stuck-bookings", "401"],
      errors=["WebhookVerifier: HMAC signature mismatch for notification psp-evt-8f21c (merchantAccount=FAREWIND_EU)",
              "POST /psp/notifications 401 3ms"],
      reporter="oncall-payments",
      outcome=out("2025-01-09T15:30:00Z",
                  "finance generated a new HMAC key for the FAREWIND_EU merchant account in the "
                  "PSP customer area; payment-handoff still verified with the old key from "
                  "Vault and rejected every notification",
                  "Fetching the PSP status of pending sessions completed the 260 stuck bookings, "
                  "but new ones kept getting stuck because notifications were still rejected. "
                  "Copied the new key into Vault (payments/psp/hmac) and restarted "
                  "payment-handoff; PSP retries then drained (1,140 notifications). Finance now "
                  "tells payments on-call before changing the key.",
                  [rb("payment-poll-pending-sessions", "partial"),
                   manual("put the new HMAC key in Vault and restart payment-handoff by hand",
                          "succeeded")],
                  None, "a.ferreira"))

page("G3", "GDS", "-", "2025-01-14T20:15:00Z", 13, "gds-connector", "GdsSessionPoolExhausted",
     "critical", "GDS session pool search at 100% (400/400) for 10m",
     labels={"pool": "search"},
     outcome=out("2025-01-14T22:40:00Z",
                 "GDS availability slowdown (their p99 12 s) during the January sale peak; "
                 "connector timeouts orphaned sessions",
                 "The procedure signed out 180 sessions, then hit the GDS sign-in throttle "
                 "('Too many SignIn requests') and left the pool half empty for 20 minutes. The "
                 "rest were signed out by hand in batches of 50 with a 30 s pause. Revision 2 "
                 "of the runbook batches the sign-outs.",
                 [rb("gds-recycle-session-pool", "partial"),
                  manual("sign out the remaining orphaned sessions in batches of 50 by hand",
                         "succeeded")],
                 "gds-recycle-session-pool", "r.haddad"))

page("N2", "MAIL", "-", "2025-01-17T08:30:00Z", 12, "notification-service",
     "EmailProviderRejects", "high", "Postlane rejected 96% of transactional sends over 10m",
     symptoms=["email-bounce"], labels={"provider": "postlane"},
     outcome=out("2025-01-17T09:15:00Z",
                 "Postlane throttled our account to 1 message/s after a spam-complaint spike on "
                 "the January newsletter, which still shared the transactional IP pool",
                 "Transactional mail moved to Sendbridge; the 6.2k backlog was sent by 09:05.",
                 [rb("notifications-switch-email-provider", "succeeded")],
                 "notifications-switch-email-provider", "e.rossi"))

human("H3", "HOTEL", "surge", "2025-01-22T06:05:00Z", 45, "hotel-inventory-sync", "high",
      "Hotel availability updates 2h behind",
      "RoomBridge pushed a full refresh overnight (their ops confirmed). Backlog 4.1M, oldest "
      "update 2h old. RoomBridge API answers fine (p95 180ms, no 429s). All 12 workers at "
      "their CPU limit.",
      symptoms=["queue-backlog", "stale-data"], reporter="hotels-oncall",
      outcome=out("2025-01-22T09:40:00Z",
                  "RoomBridge sent a full inventory refresh (4.1M rows) after a data migration "
                  "on their side; workers CPU-bound, supplier healthy",
                  "Because of December's StayNet incident on-call first lowered RoomBridge "
                  "concurrency to 4: the backlog grew faster, the supplier was never the "
                  "bottleneck. Scaling the workers to 36 drained it by 09:20.",
                  [rb("hotel-sync-lower-supplier-concurrency", "failed", "for roombridge"),
                   rb("hotel-sync-scale-workers", "succeeded", "with 36 replicas")],
                  "hotel-sync-scale-workers", "p.iyer"))

human("PR2", "PASS", "-", "2025-01-24T07:15:00Z", 25, "checkin-service", "medium",
      "Boarding pass download failing for some customers",
      "App store reviews and 12 chats this morning: 'Download boarding pass' spins and then "
      "shows an error. Check-in itself works. checkin-service returns 500 on /passes/*.pdf, "
      "roughly one in five.",
      symptoms=["5xx", "customer-complaints"],
      errors=["PassRenderer: Failed to launch the browser process! spawn /usr/bin/chromium EAGAIN"],
      reporter="oncall-fulfilment",
      outcome=out("2025-01-24T07:50:00Z",
                  "Chromium zombie processes reached the pids limit in 3 of 8 renderer sidecars",
                  "Renderer pods restarted one at a time; errors gone at 07:41.",
                  [rb("checkin-recycle-pass-renderer", "succeeded")],
                  "checkin-recycle-pass-renderer", "k.nakamura"))

page("F2", "FARE", "-", "2025-01-29T12:40:00Z", 9, "fare-cache", "FareCacheMemoryHigh",
     "high", "fare-cache used_memory at 99% of maxmemory for 5m",
     symptoms=["memory-pressure"],
     outcome=out("2025-01-29T13:30:00Z",
                 "the new NDC fare-family enrichment in flight-search wrote ff:* keys without TTL",
                 "Gave 6.3M ff:* keys a 6 h TTL; memory down to 58%. Search latency rose for "
                 "about 7 minutes, no GDS session trouble this time.",
                 [rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern ff:*")],
                 "fare-cache-expire-ttl-less-keys", "j.lindqvist"))

# --- February 2025 ---------------------------------------------------------

human("R2", "RO", "-", "2025-02-04T15:02:00Z", 13, "booking-service", "critical",
      "Bookings failing: 'cannot execute INSERT in a read-only transaction'",
      "Booking create has been failing for everything since 14:49, loyalty postings too. "
      "orders-db looks read-only; patronictl list shows no Leader, all three members "
      "replicas.",
      symptoms=["5xx", "read-only", "error-rate"],
      errors=["org.postgresql.util.PSQLException: ERROR: cannot execute INSERT in a read-only transaction"],
      reporter="oncall-booking",
      outcome=out("2025-02-04T15:55:00Z",
                  "etcd disk latency during an OS patch run on etcd-2; the Patroni leader lost "
                  "its lock and demoted itself",
                  "Moved etcd leadership to etcd-1 and failed over to orders-pg-1; writes "
                  "resumed at 15:31.",
                  [rb("orders-db-patroni-restore-leader", "succeeded")],
                  "orders-db-patroni-restore-leader", "d.kowalski"))

human("T3", "TKT", "-", "2025-02-12T09:40:00Z", 40, "booking-service", "high",
      "TK tickets not issued since 9am",
      "Turkish Airlines bookings are confirmed and paid but have no ticket numbers, about 70 "
      "of them. Customers are calling because they can't check in online.",
      symptoms=["stuck-bookings", "customer-complaints"],
      source="support-escalation", reporter="support-lead",
      outcome=out("2025-02-12T10:30:00Z",
                  "a passenger name with a typographic apostrophe that the GDS rejects ('INVALID "
                  "CHARACTER IN NAME'), treated as retryable and requeued at the head of "
                  "ticketing.issue.TK",
                  "Head message moved to ticketing.parked; TK backlog issued by 10:12.",
                  [rb("ticketing-park-poison-message", "succeeded", "for carrier TK")],
                  "ticketing-park-poison-message", "s.brandt"))

human("A3", "ALIAS", "-", "2025-02-18T08:20:00Z", 35, "search-autocomplete", "medium",
      "autocomplete only shows airports, no cities or hotels",
      "Several customers say the search box only suggests airports since this morning. Tried "
      "it myself: 'Paris' gives CDG and ORY but not the city or any hotel.",
      symptoms=["zero-results", "customer-complaints"],
      source="support-escalation", reporter="support-lead",
      outcome=out("2025-02-18T09:00:00Z",
                  "the build read an empty city and hotel content export (the "
                  "hotel-inventory-sync export job had failed on a node with a full disk) and "
                  "swapped the alias anyway",
                  "Alias back on destinations-20250217; full suggestions at 08:47.",
                  [rb("autocomplete-repoint-index-alias", "succeeded")],
                  "autocomplete-repoint-index-alias", "l.moreau"))

human("G4", "GDS", "-", "2025-02-26T17:30:00Z", 35, "partner-api", "high",
      "Affiliates reporting flight search 504s",
      "Two big affiliates (SkyComparer and FlyDeals) opened tickets: /v2/flights/search gives "
      "504 after 30s on about a quarter of calls since ~17:00. Our own site's search is slow as "
      "well. partner-api itself looks healthy, it is waiting on flight-search.",
      symptoms=["5xx", "timeouts", "latency-spike"],
      errors=["upstream flight-search timed out (30000ms) while reading response header",
              "GdsClientException: NO_SESSION_AVAILABLE (pool=search)"],
      reporter="partners-oncall",
      outcome=out("2025-02-26T18:20:00Z",
                  "two gds-connector pods were OOM-killed during the evening peak; the GDS "
                  "sessions they held were never signed out and counted against the quota",
                  "Revision 2 signed out 214 orphaned sessions in batches; the 504s stopped by "
                  "18:05. Connector memory limit raised.",
                  [rb("gds-recycle-session-pool", "succeeded", "(revision 2) for pool search")],
                  "gds-recycle-session-pool", "m.okafor"))

# --- March 2025 ------------------------------------------------------------

page("P3", "PSP", "delay", "2025-03-05T10:10:00Z", 12, "booking-service",
     "BookingsPendingPaymentHigh", "high",
     "412 bookings in PENDING_PAYMENT older than 15m (threshold 100); PSP notifications received last 10m: 0",
     symptoms=["stuck-bookings"],
     outcome=out("2025-03-05T12:00:00Z",
                 "PSP notification delivery delayed about 90 minutes on their side; our endpoint "
                 "received nothing, no 401s",
                 "After January, on-call first loaded the HMAC key again: the key in Vault "
                 "already matched the PSP customer area and nothing changed. The endpoint logs "
                 "had no incoming requests at all. Fetching the PSP status of pending sessions "
                 "completed 398 bookings; repeated twice until the PSP recovered at 11:40.",
                 [rb("payment-sync-webhook-secret", "failed"),
                  rb("payment-poll-pending-sessions", "succeeded")],
                 "payment-poll-pending-sessions", "a.ferreira"))

human("PR3", "PASS", "-", "2025-03-08T11:00:00Z", 25, "web-bff", "medium",
      "Boarding passes 500 in app",
      "web-bff error budget burn on /trips/{id}/boarding-pass. All the errors are upstream 500s "
      "from checkin-service.",
      symptoms=["5xx"],
      errors=["checkin-service responded 500: pass render failed"],
      reporter="web-oncall",
      outcome=out("2025-03-08T11:40:00Z",
                  "pids exhaustion in the checkin-service renderer sidecars (zombie Chromium)",
                  "Renderer pods restarted; web-bff errors back to baseline at 11:31.",
                  [rb("checkin-recycle-pass-renderer", "succeeded")],
                  "checkin-recycle-pass-renderer", "k.nakamura"))

page("T4", "TKT", "-", "2025-03-12T04:50:00Z", 19, "ticketing-worker",
     "TicketingMessageGroupStalled", "high",
     "FIFO message group LH has had no successful delete for 25m; oldest message 1840s",
     symptoms=["queue-backlog"], labels={"queue": "ticketing-issue.fifo", "message_group": "LH"},
     outcome=out("2025-03-12T06:10:00Z",
                 "a booking with a frequent-flyer number in the wrong format ('INVALID FQTV' "
                 "from the GDS) was retried by the worker; on SQS FIFO the LH message group is "
                 "blocked until the message reaches maxReceiveCount (50 receives x 120 s)",
                 "On-call started the RabbitMQ procedure out of habit; it failed at once, there "
                 "is no RabbitMQ since the move to SQS on 2025-02-22. Moving the head message of "
                 "group LH to ticketing-issue-dlq.fifo unblocked it; 140 LH tickets issued by "
                 "05:40.",
                 [rb("ticketing-park-poison-message", "failed", "for carrier LH"),
                  rb("ticketing-sqs-dlq-poison-message", "succeeded", "for group LH")],
                 "ticketing-sqs-dlq-poison-message", "j.lindqvist"))

human("F3", "FARE", "-", "2025-03-18T18:30:00Z", 25, "flight-search", "high",
      "Flight search slow and GDS errors, cache hit rate tanked",
      "p95 search latency 9s (normally 1.8s). Fare cache hit ratio dropped from 85% to 6% "
      "around 18:00 and the GDS side is throwing session limit errors. fare-cache log: OOM "
      "command not allowed.",
      symptoms=["latency-spike", "memory-pressure", "timeouts"],
      errors=["OOM command not allowed when used memory > 'maxmemory'.",
              "SOAP Fault: 11|Session limit exceeded"],
      reporter="search-oncall",
      outcome=out("2025-03-20T12:00:00Z",
                  "the promo-fares job wrote promo:* keys without TTL; fare-cache hit maxmemory "
                  "(noeviction)",
                  "TTL set on 4.9M promo:* keys at 18:50; search recovered at 19:05. Confirmed "
                  "at the review two days later, promo job fixed to use SET EX.",
                  [rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern promo:*")],
                  "fare-cache-expire-ttl-less-keys", "j.lindqvist"))

human("N3", "MAIL", "-", "2025-03-20T09:05:00Z", 35, "booking-service", "medium",
      "customers say no e-ticket email",
      "Support: about 30 contacts since 8am, people who booked last night or this morning have "
      "no e-ticket email. The ticket numbers are there in booking admin.",
      symptoms=["customer-complaints", "delivery-delay"],
      source="support-escalation", reporter="support-lead",
      outcome=out("2025-03-20T10:00:00Z",
                  "Postlane's daily sending quota was reached at 08:10 after a billing error "
                  "put our account back on the old tier",
                  "Transactional mail moved to Sendbridge; 9k queued emails sent by 09:50.",
                  [rb("notifications-switch-email-provider", "succeeded")],
                  "notifications-switch-email-provider", "e.rossi"))

page("H4", "HOTEL", "throttle", "2025-03-25T02:30:00Z", 18, "hotel-inventory-sync",
     "HotelSyncLagHigh", "high",
     "Availability backlog 1.2M, oldest 38m; supplier=alpina 429 rate 71%",
     symptoms=["queue-backlog"], labels={"supplier": "alpina"},
     outcome=out("2025-03-25T03:40:00Z",
                 "Alpina Hotels lowered our quota during their maintenance window and our "
                 "retries kept us throttled",
                 "Alpina concurrency set to 3 with Retry-After honoured; backlog drained by "
                 "03:30.",
                 [rb("hotel-sync-lower-supplier-concurrency", "succeeded", "for alpina")],
                 "hotel-sync-lower-supplier-concurrency", "p.iyer"))

page("X3", "X-REL", "-", "2025-03-27T13:15:00Z", 9, "booking-service",
     "BookingCreateErrorRate", "critical",
     "Booking create 5xx ratio 6.2% over 5m (threshold 2%)",
     symptoms=["5xx"],
     deployment={"id": "deploy-9312", "revision": "booking-service 7.14.0",
                 "environment": "production", "minutesSinceDeploy": 9},
     outcome=out("2025-03-27T13:50:00Z",
                 "booking-service 7.14.0 threw a NullPointerException mapping infant (INF) fare "
                 "basis codes in the new fare-rules mapper; every booking with an infant failed",
                 "Deployment returned to 7.13.2; 5xx ratio 0.1% at 13:34. Fix shipped in "
                 "7.14.1 the next day.",
                 [rb("deploy-rollout-undo", "succeeded", "for booking-service")],
                 "deploy-rollout-undo", "d.kowalski"))

# --- April 2025 ------------------------------------------------------------

page("A4", "ALIAS", "-", "2025-04-01T04:20:00Z", 12, "search-autocomplete",
     "AutocompleteZeroResultRateHigh", "high",
     "Zero-result rate 29% for prefixes of 3+ chars over 15m (baseline 3%)",
     symptoms=["zero-results"],
     outcome=out("2025-04-01T05:00:00Z",
                 "the build's document-count check had been dropped in a config refactor, so "
                 "an index built from a partial export went live",
                 "Alias back to destinations-20250331; check restored the same day.",
                 [rb("autocomplete-repoint-index-alias", "succeeded")],
                 "autocomplete-repoint-index-alias", "l.moreau"))

page("R3", "RO", "-", "2025-04-03T03:05:00Z", 7, "loyalty-ledger", "LedgerPostingErrors",
     "high", "Points posting failures 100% over 5m", symptoms=["error-rate"],
     outcome=out("2025-04-03T04:10:00Z",
                 "etcd on the Patroni hosts stalled during a storage array firmware update; the "
                 "orders-pg leader demoted itself and the loyalty schema on the same cluster "
                 "became read-only",
                 "Leader restored on orders-pg-3 at 03:48; loyalty-ledger posted its queued "
                 "accruals afterwards.",
                 [rb("orders-db-patroni-restore-leader", "succeeded")],
                 "orders-db-patroni-restore-leader", "d.kowalski"))

page("G5", "GDS", "-", "2025-04-09T12:30:00Z", 11, "flight-search",
     "FlightSearchSupplierTimeouts", "critical",
     "GDS leg of flight search timing out for 14% of requests over 10m (threshold 5%)",
     symptoms=["timeouts"], labels={"supplier": "gds"},
     outcome=out("2025-04-09T13:10:00Z",
                 "GDS latency during their data-centre switch; the connector orphaned sessions "
                 "that timed out",
                 "Cache hit ratio was normal (83%). Orphaned sessions signed out in batches; "
                 "timeouts under 1% by 12:58.",
                 [rb("gds-recycle-session-pool", "succeeded", "for pool search")],
                 "gds-recycle-session-pool", "r.haddad"))

human("P4", "PSP", "secret", "2025-04-15T08:45:00Z", 40, "booking-service", "high",
      "Lots of bookings stuck at 'awaiting payment confirmation'",
      "Support lead here. Since about 8 this morning customers get charged but the booking "
      "stays on 'awaiting payment confirmation'. 55 contacts so far, some are booking again "
      "and getting charged twice. On-call adds: the payment-handoff access log shows POST "
      "/psp/notifications answered 401 since 07:58.",
      symptoms=["stuck-bookings", "customer-complaints", "401"],
      errors=["POST /psp/notifications 401"],
      source="support-escalation", reporter="support-lead",
      outcome=out("2025-04-15T09:30:00Z",
                  "the security team rotated the PSP webhook HMAC key as part of the quarterly "
                  "secrets rotation and did not update Vault",
                  "Loaded the current key from the PSP into Vault and restarted payment-handoff; "
                  "PSP retries completed the pending bookings by 09:20.",
                  [rb("payment-sync-webhook-secret", "succeeded")],
                  "payment-sync-webhook-secret", "a.ferreira"))

human("X1", "X-NDC", "-", "2025-04-17T15:20:00Z", 40, "flight-search", "high",
      "Emirates and Qatar fares missing from search results",
      "Since ~14:40 about half of searches on DXB/DOH routes come back without EK or QR "
      "offers. airline-connector logs show HTTP 429 from both airlines' NDC endpoints. GDS "
      "results look normal. Search volume from partner-api is 6x the usual for this hour.",
      symptoms=["missing-results", "429"],
      errors=["NdcClient[EK]: 429 Too Many Requests - AirShopping quota exceeded",
              "NdcClient[QR]: 429 Too Many Requests"],
      reporter="search-oncall",
      outcome=out("2025-04-17T16:40:00Z",
                  "one affiliate (key aff-2231, a metasearch reseller) ran an uncached scraper at "
                  "about 40x its contracted look-to-book ratio and used up our NDC AirShopping "
                  "quotas with EK and QR",
                  "The GDS session procedure was tried first and changed nothing (the GDS was "
                  "fine). aff-2231 capped at 5 req/s on partner-api; the 429s stopped when the "
                  "airlines' quota windows reset at 15:30 and 16:00.",
                  [rb("gds-recycle-session-pool", "failed"),
                   rb("partner-api-cap-affiliate-key", "succeeded", "for aff-2231 at 5 req/s")],
                  "partner-api-cap-affiliate-key", "m.okafor"))

page("F4", "FARE", "-", "2025-04-24T19:50:00Z", 12, "gds-connector", "GdsSessionPoolExhausted",
     "critical",
     "GDS session pool search at 100% (400/400) for 10m; GDS call rate 9x baseline",
     labels={"pool": "search"},
     outcome=out("2025-04-24T21:05:00Z",
                 "fare-cache at maxmemory again: a hotfix to the calendar-fares writer "
                 "reintroduced SET without EX; writes failed, every search missed the cache and "
                 "GDS calls went up ninefold",
                 "Signing out GDS sessions first: the pool was full again in three minutes. "
                 "fare-cache INFO showed used_memory at maxmemory; giving the cal:* keys a TTL "
                 "fixed it, GDS call rate back to baseline at 20:52.",
                 [rb("gds-recycle-session-pool", "failed"),
                  rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern cal:*")],
                 "fare-cache-expire-ttl-less-keys", "r.haddad"))

human("T5", "TKT", "-", "2025-04-30T06:10:00Z", 40, "booking-service", "high",
      "QR bookings stuck pending", "",
      symptoms=["stuck-bookings"], source="support-escalation", reporter="support-lead",
      outcome=out("2025-04-30T07:00:00Z",
                  "group QR blocked by a booking whose passport expiry the GDS rejects; the "
                  "worker retried it",
                  "Head message of group QR moved to the DLQ; QR tickets issued by 06:48.",
                  [rb("ticketing-sqs-dlq-poison-message", "succeeded", "for group QR")],
                  "ticketing-sqs-dlq-poison-message", "s.brandt"))

# --- May 2025 --------------------------------------------------------------

page("N4", "MAIL", "-", "2025-05-02T10:30:00Z", 9, "notification-service",
     "EmailDeliveryBacklog", "high",
     "Transactional email queue 18k, oldest 22m; provider 429 ratio 88%",
     symptoms=["delivery-delay"], labels={"provider": "postlane"},
     outcome=out("2025-05-02T11:10:00Z",
                 "Postlane regional incident: their EU API throttled all customers",
                 "Moved to Sendbridge at 10:41; queue empty by 10:58; back to Postlane after "
                 "their all-clear.",
                 [rb("notifications-switch-email-provider", "succeeded")],
                 "notifications-switch-email-provider", "e.rossi"))

human("H5", "HOTEL", "surge", "2025-05-06T08:00:00Z", 40, "booking-service", "high",
      "hotel bookings failing with 'room no longer available'",
      "Since early morning about 15% of hotel bookings fail at the last step with "
      "ROOM_NOT_AVAILABLE, mostly Bedwise properties. Hotel team says the Bedwise update "
      "backlog is at 3M after Bedwise re-sent everything overnight; the Bedwise API itself is "
      "fine.",
      symptoms=["stale-data", "error-rate", "customer-complaints"],
      errors=["HoldRoomResponse: ROOM_NOT_AVAILABLE (supplier=bedwise)"],
      reporter="oncall-booking",
      outcome=out("2025-05-06T10:30:00Z",
                  "Bedwise full refresh after their PMS migration; backlog on our side with "
                  "CPU-bound workers and no throttling",
                  "Workers scaled to 36 after the throttle check passed; drained by 10:05 and "
                  "the ROOM_NOT_AVAILABLE rate went back to 1%.",
                  [rb("hotel-sync-scale-workers", "succeeded", "with 36 replicas")],
                  "hotel-sync-scale-workers", "p.iyer"))

human("A5", "ALIAS", "-", "2025-05-14T07:40:00Z", 40, "search-autocomplete", "medium",
      "Autocomplete suggestions wrong or missing since last night",
      "The search box suggests 'Paris, Texas' for 'Par' and no Paris France, and lots of "
      "cities are missing. Looks like about half the destinations are gone.",
      symptoms=["zero-results", "stale-data"], reporter="product-manager",
      outcome=out("2025-05-16T10:00:00Z",
                  "the build read a half-written export: the hotel-inventory-sync export and the "
                  "build overlapped after the export schedule moved an hour later",
                  "Alias pointed back to destinations-20250513 at 08:05 on the 14th; confirmed "
                  "and the schedules separated on the 16th.",
                  [rb("autocomplete-repoint-index-alias", "succeeded")],
                  "autocomplete-repoint-index-alias", "l.moreau"))

human("PR4", "PASS", "-", "2025-05-22T17:45:00Z", 25, "checkin-service", "high",
      "Can't get boarding passes after check-in",
      "Evening peak. Customers complete check-in but 'Get boarding pass' errors out, Wallet "
      "passes too. About 30% of attempts. Not sure if the renderer containers are restarting.",
      symptoms=["5xx", "customer-complaints"],
      errors=["Error: Failed to launch the browser process! Resource temporarily unavailable"],
      reporter="oncall-fulfilment",
      outcome=out("2025-05-22T18:20:00Z",
                  "zombie Chromium processes filled the renderer sidecars' pids limit",
                  "Scaling checkin-service from 6 to 12 pods helped only while the new pods were "
                  "fresh. Restarting the renderer pods cleared it at 18:12.",
                  [manual("scale checkin-service from 6 to 12 pods", "partial"),
                   rb("checkin-recycle-pass-renderer", "succeeded")],
                  "checkin-recycle-pass-renderer", "k.nakamura"))

human("G6", "GDS", "-", "2025-05-28T10:05:00Z", 25, "web-bff", "medium",
      "flight results thin on GDS-only routes",
      "Product noticed that searches on regional routes (only bookable through the GDS) come "
      "back empty or time out. NDC carriers are fine. gds-connector dashboard: session pool "
      "flat at max.",
      symptoms=["missing-results", "timeouts"], reporter="product-manager",
      outcome=out("2025-05-28T10:50:00Z",
                  "a failover inside the GDS dropped sessions without telling us; the connector "
                  "kept dead sessions in its pool",
                  "Dead sessions signed out in batches and the pool reset; regional results "
                  "back at 10:38.",
                  [rb("gds-recycle-session-pool", "succeeded", "for pool search")],
                  "gds-recycle-session-pool", "m.okafor"))

# --- June 2025 -------------------------------------------------------------

page("P5", "PSP", "delay", "2025-06-03T13:30:00Z", 10, "payment-handoff", "PspWebhookSilence",
     "high", "No PSP notifications received for 20m during business hours",
     outcome=out("2025-06-03T14:45:00Z",
                 "PSP notification delivery delayed on their side (queue backlog)",
                 "No requests reached our endpoint, so no 401s. Fetched the status of pending "
                 "sessions every 10 minutes until the PSP recovered at 14:30.",
                 [rb("payment-poll-pending-sessions", "succeeded")],
                 "payment-poll-pending-sessions", "a.ferreira"))

page("R4", "RO", "-", "2025-06-06T03:12:00Z", 8, "booking-service", "BookingCreateErrorRate",
     "critical",
     "Booking create 5xx ratio 34% over 5m (threshold 2%); top error: read-only transaction",
     symptoms=["5xx"],
     outcome=out("2025-06-06T05:30:00Z",
                 "Aurora writer failover at 03:01 (instance replaced by AWS maintenance); "
                 "booking-service, loyalty-ledger and payment-handoff kept pooled connections to "
                 "the old writer, now a reader, because the JVM cached the cluster endpoint's DNS",
                 "On-call ran the Patroni procedure linked from the old alert: it fails at the "
                 "first step, there is no Patroni or etcd since the Aurora move. Rolling restarts "
                 "of booking-service, loyalty-ledger and payment-handoff by hand; errors stopped "
                 "at 03:58. networkaddress.cache.ttl set to 5 s afterwards and a runbook for the "
                 "restarts written.",
                 [rb("orders-db-patroni-restore-leader", "failed"),
                  manual("rolling restart of booking-service, loyalty-ledger and payment-handoff "
                         "by hand", "succeeded")],
                 None, "d.kowalski"))

page("R4d", "RO", "-", "2025-06-06T03:20:00Z", 14, "loyalty-ledger", "LedgerPostingErrors",
     "high", "Points posting failures 100% over 5m", symptoms=["error-rate"],
     repage_of="R4")

human("F5", "FARE", "-", "2025-06-11T14:20:00Z", 25, "flight-search", "high",
      "search latency way up, cache misses",
      "Flight search p95 up to 7s. fare-cache hit ratio is around 10%. Redis memory graph "
      "flat at the top. Nothing deployed on flight-search today.",
      symptoms=["latency-spike", "memory-pressure"], reporter="search-oncall",
      outcome=out("2025-06-11T15:05:00Z",
                  "flight-search's seat-map teaser (switched on by feature flag that morning) "
                  "wrote seatmap:* keys into fare-cache without TTL",
                  "TTL given to 7.1M seatmap:* keys; hit ratio 82% at 14:58.",
                  [rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern seatmap:*")],
                  "fare-cache-expire-ttl-less-keys", "j.lindqvist"))

human("N5", "MAIL", "-", "2025-06-16T06:50:00Z", 40, "checkin-service", "high",
      "check-in reminder and boarding pass emails not arriving",
      "Ops: customers flying today say they never got the 24h check-in reminder or the "
      "boarding pass email. checkin-service hands the sends to notification-service fine. "
      "notification-service has a big retry queue and the provider answers 'sending paused'.",
      symptoms=["delivery-delay", "customer-complaints", "email-bounce"],
      errors=["Postlane API 403 account_sending_paused"], reporter="ops-duty-manager",
      outcome=out("2025-06-16T07:40:00Z",
                  "Postlane paused sending after a DKIM failure spike: the DNS provider change on "
                  "the 15th dropped the DKIM CNAME of the mail subdomain",
                  "Transactional mail moved to Sendbridge (own DKIM) at 07:05; DKIM record "
                  "restored at 10:00 and traffic moved back in the afternoon.",
                  [rb("notifications-switch-email-provider", "succeeded")],
                  "notifications-switch-email-provider", "e.rossi"))

page("T6", "TKT", "-", "2025-06-18T11:35:00Z", 17, "ticketing-worker",
     "TicketingMessageGroupStalled", "high",
     "FIFO message group AF has had no successful delete for 25m; oldest message 1620s",
     symptoms=["queue-backlog"], labels={"queue": "ticketing-issue.fifo", "message_group": "AF"},
     outcome=out("2025-06-18T12:20:00Z",
                 "an AF booking with a child typed as an adult; the GDS rejected the fare with "
                 "'PTC MISMATCH' and the worker kept retrying",
                 "Head message of group AF moved to the DLQ at 12:08; 180 AF tickets issued.",
                 [rb("ticketing-sqs-dlq-poison-message", "succeeded", "for group AF")],
                 "ticketing-sqs-dlq-poison-message", "j.lindqvist"))

page("T6d", "TKT", "-", "2025-06-18T11:52:00Z", 12, "booking-service",
     "BookingsPendingTicketingHigh", "high",
     "183 bookings in PENDING_TICKET older than 30m (threshold 50)",
     symptoms=["stuck-bookings"], repage_of="T6",
     outcome=out("2025-06-18T12:25:00Z",
                 "same cause as {T6}: the AF message group was blocked by one booking",
                 "Duplicate page of {T6}; cleared by the same DLQ move at 12:08.",
                 [rb("ticketing-sqs-dlq-poison-message", "succeeded", "for group AF, under {T6}")],
                 "ticketing-sqs-dlq-poison-message", "j.lindqvist"))

page("H6", "HOTEL", "throttle", "2025-06-24T22:10:00Z", 19, "hotel-inventory-sync",
     "HotelSyncLagHigh", "high",
     "Availability backlog 800k, oldest 31m; supplier=staynet 429 rate 64%",
     symptoms=["queue-backlog"], labels={"supplier": "staynet"},
     outcome=out("2025-06-24T23:15:00Z",
                 "StayNet halved partner quotas for their peak season; we were over the new limit",
                 "StayNet concurrency lowered from 4 to 2; backlog gone at 23:05.",
                 [rb("hotel-sync-lower-supplier-concurrency", "succeeded", "for staynet")],
                 "hotel-sync-lower-supplier-concurrency", "p.iyer"))

page("A6", "ALIAS", "-", "2025-06-30T04:05:00Z", 10, "search-autocomplete",
     "AutocompleteZeroResultRateHigh", "high",
     "Zero-result rate 52% for prefixes of 3+ chars over 15m (baseline 3%)",
     symptoms=["zero-results"],
     outcome=out("2025-06-30T04:40:00Z",
                 "the hotel content export answered 200 with an empty body after an S3 "
                 "permission change, and the build still had no minimum document count",
                 "Alias back to destinations-20250629; minimum count added to the build.",
                 [rb("autocomplete-repoint-index-alias", "succeeded")],
                 "autocomplete-repoint-index-alias", "l.moreau"))

# --- July 2025 -------------------------------------------------------------

page("P6", "PSP", "secret", "2025-07-01T09:20:00Z", 10, "payment-handoff",
     "PaymentWebhookSignatureFailures", "high",
     "PSP notification HMAC verification failures 100% over 10m",
     symptoms=["401"],
     outcome=out("2025-07-01T10:00:00Z",
                 "the PSP moved our merchant accounts under a new company account, which came "
                 "with its own HMAC key",
                 "Current key loaded into Vault and payment-handoff restarted; PSP retries "
                 "drained by 09:52.",
                 [rb("payment-sync-webhook-secret", "succeeded")],
                 "payment-sync-webhook-secret", "a.ferreira"))

human("R5", "RO", "-", "2025-07-03T07:40:00Z", 18, "payment-handoff", "critical",
      "payment status updates failing - read-only transaction",
      "payment-handoff can't write payment results: 'cannot execute UPDATE in a read-only "
      "transaction'. booking-service probably too. RDS console shows a failover event for "
      "orders-aurora at 07:21.",
      symptoms=["read-only", "error-rate"],
      errors=["ERROR: cannot execute UPDATE in a read-only transaction"],
      reporter="oncall-payments",
      outcome=out("2025-07-03T08:20:00Z",
                  "Aurora writer failover (storage node trouble); clients kept pooled "
                  "connections to the old writer",
                  "Client pools restarted in order; writes fine at 08:05. The JVM DNS TTL fix "
                  "had not reached payment-handoff's base image yet.",
                  [rb("orders-db-recycle-client-pools", "succeeded")],
                  "orders-db-recycle-client-pools", "d.kowalski"))

human("G7", "GDS", "-", "2025-07-08T16:00:00Z", 25, "gds-connector", "high",
      "gds-connector: SessionLimitExceeded from the GDS",
      "Getting 'Session limit exceeded' faults on ~20% of GDS calls. In-flight requests around "
      "70 while the pool reports 400 busy. Started after the GDS's 15:30 slowness notice.",
      symptoms=["error-rate", "timeouts"],
      errors=["SOAP Fault: 11|Session limit exceeded"], reporter="supply-oncall",
      outcome=out("2025-07-08T16:45:00Z",
                  "GDS slowness orphaned sessions again; cache hit ratio normal",
                  "Batched sign-out and pool reset; faults gone by 16:31.",
                  [rb("gds-recycle-session-pool", "succeeded", "for pool search")],
                  "gds-recycle-session-pool", "r.haddad"))

page("N6", "MAIL", "-", "2025-07-10T12:15:00Z", 11, "notification-service",
     "EmailProviderRejects", "high", "Postlane rejected 71% of transactional sends over 10m",
     symptoms=["email-bounce"], labels={"provider": "postlane"},
     outcome=out("2025-07-10T13:00:00Z",
                 "Postlane throttled the account after a partner newsletter, sent through our "
                 "account by the affiliates team, drew complaints",
                 "Transactional mail on Sendbridge from 12:31; newsletter moved to the "
                 "marketing account.",
                 [rb("notifications-switch-email-provider", "succeeded")],
                 "notifications-switch-email-provider", "e.rossi"))

human("T7", "TKT", "-", "2025-07-15T08:10:00Z", 40, "notification-service", "high",
      "customers not getting LH e-tickets",
      "Support says Lufthansa customers from last night have no e-ticket email. Checked "
      "notification-service: no failures, the provider accepts everything, queue empty. The "
      "e-ticket emails for those bookings were simply never requested.",
      symptoms=["customer-complaints", "delivery-delay"], reporter="comms-oncall",
      outcome=out("2025-07-15T09:30:00Z",
                  "the LH message group had been blocked since 23:40 by a booking with a name "
                  "longer than the GDS allows; no tickets were issued, so no e-ticket emails",
                  "Nothing wrong with e-mail. Head message of group LH moved to the DLQ at "
                  "09:02; 310 LH tickets issued and their emails sent by 09:25.",
                  [rb("ticketing-sqs-dlq-poison-message", "succeeded", "for group LH")],
                  "ticketing-sqs-dlq-poison-message", "s.brandt"))

page("PR5", "PASS", "-", "2025-07-18T05:25:00Z", 10, "checkin-service",
     "BoardingPassRenderErrors", "high", "Boarding pass render failures 31% over 10m",
     symptoms=["5xx"],
     outcome=out("2025-07-18T05:55:00Z",
                 "zombie Chromium processes in the renderer sidecars, pids limit reached",
                 "Renderer pods restarted one at a time; no failures after 05:47.",
                 [rb("checkin-recycle-pass-renderer", "succeeded")],
                 "checkin-recycle-pass-renderer", "k.nakamura"))

human("F6", "FARE", "-", "2025-07-22T20:40:00Z", 25, "fare-cache", "high",
      "fare-cache OOM errors on write",
      "Redis rejecting SETs with OOM command not allowed, used_memory 15.9G of 16G. Search "
      "still works but everything goes to the suppliers.",
      symptoms=["memory-pressure", "latency-spike"],
      errors=["OOM command not allowed when used memory > 'maxmemory'."],
      reporter="search-oncall",
      outcome=out("2025-07-22T21:30:00Z",
                  "a bulk import of corporate negotiated fares wrote neg:* keys without TTL",
                  "TTL set on 5.4M neg:* keys; memory at 55% by 21:18.",
                  [rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern neg:*")],
                  "fare-cache-expire-ttl-less-keys", "j.lindqvist"))

human("H7", "HOTEL", "surge", "2025-07-24T04:00:00Z", 45, "hotel-inventory-sync", "high",
      "Alpina sent full dump, sync 90 min behind",
      "Alpina Hotels re-sent their whole inventory (3.6M updates) after a bug on their side. "
      "Their API answers normally, no throttling. Our workers are maxed out.",
      symptoms=["queue-backlog", "stale-data"], reporter="hotels-oncall",
      outcome=out("2025-07-24T06:00:00Z",
                  "Alpina full inventory re-send; supplier healthy, workers CPU-bound",
                  "Throttle check passed (0.2% 429s), workers scaled to 36; drained by 05:40.",
                  [rb("hotel-sync-scale-workers", "succeeded", "with 36 replicas")],
                  "hotel-sync-scale-workers", "p.iyer"))

human("P7", "PSP", "delay", "2025-07-29T15:10:00Z", 30, "booking-service", "high",
      "Stuck 'payment pending' bookings again",
      "About 200 bookings in PENDING_PAYMENT for more than 15 min. Webhook endpoint: zero "
      "requests in the last 30 min (no 401s, nothing at all). PSP status page: "
      "'Investigating - delays in notification delivery'.",
      symptoms=["stuck-bookings", "delivery-delay"], reporter="oncall-booking",
      outcome=out("2025-07-31T10:00:00Z",
                  "PSP notification delivery delay (their incident)",
                  "Pending sessions completed from the PSP API at 15:20 and 15:50; PSP "
                  "recovered at 16:10. Confirmed at the weekly review two days later.",
                  [rb("payment-poll-pending-sessions", "succeeded")],
                  "payment-poll-pending-sessions", "a.ferreira"))

human("X2", "X-BCBP", "-", "2025-07-30T06:30:00Z", 85, "checkin-service", "high",
      "Boarding passes failing for Iberia only",
      "All IB check-ins since 05:05 end with 'boarding pass unavailable'. Other airlines are "
      "fine. checkin-service logs a parse error on the DCS response; the renderer is not "
      "involved (no PDF calls are made).",
      symptoms=["error-rate", "customer-complaints"],
      errors=["BcbpParseException: unexpected field 'securityData' (version 7) at offset 60 (carrier=IB)"],
      reporter="oncall-fulfilment",
      outcome=out("2025-07-31T12:00:00Z",
                  "Iberia's DCS started returning boarding-pass barcode data in BCBP version 7 "
                  "with a security data section; our parser only accepted version 6",
                  "Restarting the renderer pods changed nothing. checkin-service 4.22.1 with a "
                  "parser that accepts version 7 went out at 09:40 on the 30th; the agent desk "
                  "e-mailed passes to affected passengers meanwhile. Confirmed the next day.",
                  [rb("checkin-recycle-pass-renderer", "failed"),
                   manual("ship checkin-service 4.22.1 with a BCBP version 7 parser", "succeeded")],
                  None, "k.nakamura"))

# --- August 2025 -----------------------------------------------------------

human("A7", "ALIAS", "-", "2025-08-04T08:15:00Z", 30, "search-autocomplete", "medium",
      "autocomplete broken again", "",
      symptoms=["zero-results"], reporter="support-lead", source="support-escalation",
      outcome=out("2025-08-04T08:50:00Z",
                  "the export job ran on a stale replica of the hotel content database and "
                  "produced 40% of the documents; the new minimum count was set too low",
                  "Alias back to destinations-20250803; minimum raised to 90% of the previous "
                  "index.",
                  [rb("autocomplete-repoint-index-alias", "succeeded")],
                  "autocomplete-repoint-index-alias", "l.moreau"))

human("R6", "RO", "-", "2025-08-07T02:35:00Z", 8, "booking-service", "critical",
      "booking writes failing after Aurora failover",
      "Aurora failed over at 02:28 (maintenance). Booking create errors 'read-only "
      "transaction' from about half of the booking pods.",
      symptoms=["read-only", "5xx"],
      errors=["PSQLException: ERROR: cannot execute INSERT in a read-only transaction"],
      reporter="oncall-booking",
      outcome=out("2025-08-07T03:30:00Z",
                  "Aurora maintenance failover; pods started before the DNS TTL change still "
                  "cached the old writer's address",
                  "Client pools restarted; errors stopped at 03:12.",
                  [rb("orders-db-recycle-client-pools", "succeeded")],
                  "orders-db-recycle-client-pools", "d.kowalski"))

human("H8", "HOTEL", "throttle", "2025-08-14T11:00:00Z", 50, "hotel-inventory-sync", "high",
      "StayNet rates stale, lots of 429s",
      "Hotel team: StayNet updates are ~45 min behind. Worker logs are full of 429 and "
      "Retry-After. Someone bumped the workers to 24 this morning for the Bedwise load, might "
      "be related.",
      symptoms=["429", "stale-data", "queue-backlog"],
      errors=["StayNetClient: HTTP 429 Too Many Requests (Retry-After: 30)"],
      reporter="hotels-oncall",
      outcome=out("2025-08-14T12:10:00Z",
                  "the morning scale-up to 24 workers doubled our StayNet call rate over their "
                  "quota",
                  "StayNet concurrency lowered to 2 and workers back to 12; StayNet backlog "
                  "drained by 11:55.",
                  [rb("hotel-sync-lower-supplier-concurrency", "succeeded", "for staynet")],
                  "hotel-sync-lower-supplier-concurrency", "p.iyer"))

human("G8", "GDS", "-", "2025-08-19T21:15:00Z", 20, "ticketing-worker", "high",
      "ticket issue retries climbing, NO_SESSION_AVAILABLE",
      "Evening peak, issue retries at 400/min. gds-connector is out of sessions.",
      symptoms=["error-rate", "queue-backlog"],
      errors=["GdsClientException: NO_SESSION_AVAILABLE (pool=ticketing, waited 30000ms)"],
      reporter="oncall-fulfilment",
      outcome=out("2025-08-19T22:00:00Z",
                  "orphaned GDS sessions in the ticketing pool after a GDS slowdown",
                  "Sessions signed out in batches, pool reset; retries back to normal by 21:48.",
                  [rb("gds-recycle-session-pool", "succeeded", "for pool ticketing")],
                  "gds-recycle-session-pool", "r.haddad"))

human("P8", "PSP", "secret", "2025-08-21T10:30:00Z", 25, "payment-handoff", "high",
      "PSP webhooks 401 since 10:05, bookings pending", "",
      symptoms=["401", "stuck-bookings"], reporter="oncall-payments",
      outcome=out("2025-08-21T11:10:00Z",
                  "quarterly HMAC key rotation by the security team, Vault not updated",
                  "Current key loaded into Vault and payment-handoff restarted at 10:48.",
                  [rb("payment-sync-webhook-secret", "succeeded")],
                  "payment-sync-webhook-secret", "a.ferreira"))

human("PR6", "PASS", "-", "2025-08-23T06:40:00Z", 25, "checkin-service", "medium",
      "boarding pass errors again this morning",
      "The renderer pods have hundreds of defunct chromium processes. Errors on about 25% of "
      "pass downloads.",
      symptoms=["5xx", "pid-exhaustion"], reporter="oncall-fulfilment",
      outcome=out("2025-08-23T07:20:00Z",
                  "zombie Chromium processes, pids limit",
                  "Renderer pods restarted; tini as init in the sidecar is scheduled for the "
                  "next release.",
                  [rb("checkin-recycle-pass-renderer", "succeeded")],
                  "checkin-recycle-pass-renderer", "k.nakamura"))

human("F7", "FARE", "-", "2025-08-26T19:20:00Z", 30, "web-bff", "high",
      "search is really slow tonight",
      "web-bff p95 on /flights/search is 8.4s. Upstream flight-search is slow; its dashboards "
      "show GDS session errors and the fare cache barely hitting.",
      symptoms=["latency-spike", "timeouts"], reporter="web-oncall",
      outcome=out("2025-08-26T20:30:00Z",
                  "a new route-popularity job in flight-search wrote pop:* keys without TTL; "
                  "fare-cache at maxmemory",
                  "TTL set on 8.2M pop:* keys; hit ratio 80% and GDS sessions normal by 20:14.",
                  [rb("fare-cache-expire-ttl-less-keys", "succeeded", "for pattern pop:*")],
                  "fare-cache-expire-ttl-less-keys", "m.okafor"))

human("N7", "MAIL", "-", "2025-08-28T09:10:00Z", 40, "notification-service", "high",
      "e-ticket emails delayed",
      "Support: customers who booked this morning have no e-ticket email yet, though the "
      "tickets are issued. The provider dashboard shows our account 'under review'.",
      symptoms=["delivery-delay", "customer-complaints"],
      source="support-escalation", reporter="support-lead")

# ---------------------------------------------------------------------------
# Contradictions (applied as open, later reconciled). Memories are incident
# keys; claims say what each incident's resolution taught.
# ---------------------------------------------------------------------------

CONTRADICTIONS = [
    {"at": "2025-01-07T10:00:00Z", "name": "hotel-sync-backlog-response",
     "topic": "hotel-inventory-sync availability backlog",
     "claims": [("H1", "a supplier full refresh built the backlog; adding hotel-sync workers "
                       "(12 to 36) drained it"),
                ("H2", "adding workers made it worse: the supplier answered 429 and blocked our "
                       "key; lowering that supplier's concurrency and honouring Retry-After "
                       "drained it")],
     "resolution": {"state": "open"}},
    {"at": "2025-01-27T16:00:00Z", "name": "psp-pending-payment-response",
     "topic": "bookings stuck in PENDING_PAYMENT",
     "claims": [("P1", "PSP notifications are delayed on the PSP side; fetching the status of "
                       "pending sessions from the PSP API completes the bookings"),
                ("P2", "fetching statuses only clears the current backlog; the webhook HMAC key "
                       "had changed and every notification was rejected, loading the current "
                       "key fixed it")],
     "resolution": {"state": "open"}},
    {"at": "2025-02-03T10:00:00Z", "name": "hotel-sync-backlog-response",
     "topic": "hotel-inventory-sync availability backlog",
     "claims": [("H1", "a supplier full refresh built the backlog; adding hotel-sync workers "
                       "(12 to 36) drained it"),
                ("H2", "adding workers made it worse: the supplier answered 429 and blocked our "
                       "key; lowering that supplier's concurrency and honouring Retry-After "
                       "drained it"),
                ("H3", "lowering concurrency during a full refresh from a healthy supplier made "
                       "the backlog grow; adding workers drained it")],
     "resolution": {"state": "reconciled",
                    "note": "Both fixes hold, under different conditions. If the supplier "
                            "answers 429 or Retry-After (throttle rate above about 5%), lower "
                            "that supplier's concurrency (hotel-sync-lower-supplier-concurrency) "
                            "and never add workers. If the supplier is healthy (no 429s) and the "
                            "workers are CPU-bound on a full refresh, add workers "
                            "(hotel-sync-scale-workers, which from revision 2 checks the throttle "
                            "rate first)."}},
    {"at": "2025-05-20T10:00:00Z", "name": "psp-pending-payment-response",
     "topic": "bookings stuck in PENDING_PAYMENT",
     "claims": [("P1", "PSP notifications are delayed on the PSP side; fetching the status of "
                       "pending sessions from the PSP API completes the bookings"),
                ("P2", "fetching statuses only clears the current backlog; the webhook HMAC key "
                       "had changed and every notification was rejected, loading the current "
                       "key fixed it"),
                ("P3", "loading the HMAC key changed nothing when our endpoint received no "
                       "requests at all; fetching statuses did"),
                ("P4", "401 on the notification endpoint after a key rotation; loading the "
                       "current key fixed it")],
     "resolution": {"state": "reconciled",
                    "note": "Two conditions. If the notification endpoint receives nothing (no "
                            "requests, the PSP reports delivery delays), the key is fine: fetch "
                            "the status of pending sessions (payment-poll-pending-sessions) until "
                            "the PSP recovers. If the endpoint answers 401 with an HMAC signature "
                            "mismatch, the key changed: load the current key "
                            "(payment-sync-webhook-secret); fetching statuses only clears the "
                            "current backlog."}},
]

# Words that must not appear in incident text (they would name the fix).
BANNED_WORDS = ["runbook", "rollback", "revert", "recycle", "repoint", "re-point", "sign out",
                "signout", "dlq", "expire", "park", "undo"]


# ---------------------------------------------------------------------------
# Derivation
# ---------------------------------------------------------------------------

def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def fmt(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def build():
    incs = sorted(INCIDENTS, key=lambda i: (ts(i["at"]), i["key"]))
    keys = [i["key"] for i in incs]
    assert len(set(keys)) == len(keys), "duplicate keys"
    name = {i["key"]: "%s%04d" % (PREFIX, n + 1) for n, i in enumerate(incs)}
    by_key = {i["key"]: i for i in incs}

    def sub(text):
        return re.sub(r"\{([A-Za-z0-9]+)\}", lambda m: name[m.group(1)], text)

    # first apply time of each runbook
    first_apply = {}
    for at, rbn, rev in RUNBOOK_APPLIES:
        assert (rbn, rev) in RB, (rbn, rev)
        first_apply.setdefault(rbn, ts(at))
    catalog = set(first_apply)
    mig_by_name = {m["name"]: m for m in MIGRATIONS}

    def stale_at(t):
        out_ = set()
        for m in MIGRATIONS:
            if ts(m["at"]) <= t:
                out_.update(m["spec"]["impactedRunbooks"])
        return out_

    def right_runbook(inc):
        fam = FAMILIES[inc["family"]]
        fix = fam["conditions"][inc["cond"]]["fix"]
        t = ts(inc["at"])
        if "all" in fix:
            want = fix["all"]
        else:
            m = mig_by_name[fam["migration"]]
            want = fix["post"] if ts(m["at"]) <= t else fix["pre"]
        if want is None or want not in first_apply or first_apply[want] > t:
            return None
        return want

    truths = {}
    for inc in incs:
        t = ts(inc["at"])
        prec = []
        failed = set()
        for o in incs:
            if o is inc or ts(o["at"]) >= t:
                continue
            if o["family"] != inc["family"] or o["cond"] != inc["cond"]:
                continue
            oc = o["outcome"]
            if oc is None or ts(oc["at"]) >= t:
                continue
            prec.append(o)
            for _text, result, rbn in oc["actions"]:
                if rbn and result == "failed":
                    failed.add(rbn)
        prec.sort(key=lambda o: ts(o["at"]), reverse=True)
        right = right_runbook(inc)
        unsafe = (stale_at(t) | failed) - ({right} if right else set())
        truths[inc["key"]] = {
            "precedents": [name[o["key"]] for o in prec],
            "runbook": right,
            "novel": not prec,
            "unsafeRunbooks": sorted(unsafe),
        }

    # ---- consistency checks on the authored story -------------------------
    problems = []
    for inc in incs:
        t = ts(inc["at"])
        tr = truths[inc["key"]]
        text = " ".join([inc["title"], inc["description"], " ".join(inc["symptoms"]),
                         " ".join(inc["errors"]), json.dumps(inc["labels"]),
                         json.dumps(inc["deployment"] or {})]).lower()
        for w in BANNED_WORDS + sorted(catalog):
            if w in text:
                problems.append("%s: incident text contains %r" % (inc["key"], w))
        if inc["lead"] > 100 or inc["lead"] < 0:
            problems.append("%s: lead out of range" % inc["key"])
        oc = inc["outcome"]
        if oc:
            if ts(oc["at"]) <= t:
                problems.append("%s: outcome before incident" % inc["key"])
            worked = [a for a in oc["actions"] if a[1] == "succeeded"]
            if not worked:
                problems.append("%s: no succeeded action" % inc["key"])
            for _text, _result, rbn in oc["actions"]:
                if rbn and (rbn not in first_apply or first_apply[rbn] > t):
                    problems.append("%s: action uses %s before it exists" % (inc["key"], rbn))
            if oc["runbook"] and oc["runbook"] not in [a[2] for a in oc["actions"]]:
                problems.append("%s: outcome runbook not among actions" % inc["key"])
            # the answer key and what really worked agree
            if tr["runbook"] != oc["runbook"]:
                problems.append("%s: truth runbook %s but outcome %s"
                                % (inc["key"], tr["runbook"], oc["runbook"]))
        if tr["runbook"] and tr["runbook"] in tr["unsafeRunbooks"]:
            problems.append("%s: right runbook marked unsafe" % inc["key"])
        if inc["repage_of"]:
            orig = by_key[inc["repage_of"]]
            if orig["family"] != inc["family"] or ts(orig["at"]) >= t:
                problems.append("%s: bad re-page" % inc["key"])
    for c in CONTRADICTIONS:
        for k, _ in c["claims"]:
            oc = by_key[k]["outcome"]
            if oc is None or ts(oc["at"]) >= ts(c["at"]):
                problems.append("contradiction %s cites %s before its outcome" % (c["name"], k))
    if problems:
        for p in problems:
            print("PROBLEM:", p, file=sys.stderr)
        sys.exit(1)

    # ---- events ------------------------------------------------------------
    events = []  # (time, order, dict)
    order = 0

    def add(at, ev):
        nonlocal order
        order += 1
        events.append((ts(at), order, ev))

    add("2024-11-01T09:00:00Z", {
        "at": "2024-11-01T09:00:00Z", "type": "apply",
        "object": {"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "service-topology",
                                "labels": {"recall.dev/topology": "true"}},
                   "data": {"topology": topology_yaml()}}})
    for at, rbn, rev in RUNBOOK_APPLIES:
        add(at, {"at": at, "type": "apply",
                 "object": {"apiVersion": API, "kind": "Runbook",
                            "metadata": {"name": rbn,
                                         "labels": {"recall.dev/revision": str(rev)}},
                            "spec": RB[rbn, rev]}})
    for m in MIGRATIONS:
        add(m["at"], {"at": m["at"], "type": "apply",
                      "object": {"apiVersion": API, "kind": "ArchitectureMigration",
                                 "metadata": {"name": m["name"]}, "spec": m["spec"]}})
    for c in CONTRADICTIONS:
        add(c["at"], {"at": c["at"], "type": "apply",
                      "object": {"apiVersion": API, "kind": "Contradiction",
                                 "metadata": {"name": c["name"]},
                                 "spec": {"topic": c["topic"],
                                          "memories": [name[k] for k, _ in c["claims"]],
                                          "claims": [{"memory": name[k], "claim": cl}
                                                     for k, cl in c["claims"]],
                                          "resolution": c["resolution"]}}})
    for inc in incs:
        at = ts(inc["at"])
        spec = {"service": inc["service"], "severity": inc["severity"], "title": inc["title"],
                "description": inc["description"], "symptoms": inc["symptoms"],
                "errorSignatures": inc["errors"]}
        if inc["deployment"]:
            spec["deployment"] = inc["deployment"]
        spec["startedAt"] = fmt(at - timedelta(minutes=inc["lead"]))
        spec["labels"] = inc["labels"]
        add(inc["at"], {"at": inc["at"], "type": "incident",
                        "object": {"apiVersion": API, "kind": "Incident",
                                   "metadata": {"name": name[inc["key"]]}, "spec": spec},
                        "truth": truths[inc["key"]]})
        oc = inc["outcome"]
        if oc:
            add(oc["at"], {"at": oc["at"], "type": "outcome", "incident": name[inc["key"]],
                           "resolution": {"rootCause": sub(oc["rootCause"]),
                                          "summary": sub(oc["summary"]),
                                          "runbook": oc["runbook"],
                                          "actions": [{"action": sub(a), "result": r}
                                                      for a, r, _ in oc["actions"]],
                                          "confirmedBy": oc["by"]}})
    events.sort(key=lambda e: (e[0], e[1]))
    return [e[2] for e in events], incs, name, truths


def main():
    events, incs, name, truths = build()
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for ev in events:
            f.write(json.dumps(ev, ensure_ascii=False) + "\n")
    if "--stats" in sys.argv:
        stats(events, incs, name, truths)


def stats(events, incs, name, truths):
    n = len(incs)
    pages = sum(1 for i in incs if i["style"] == "page")
    novel = [name[i["key"]] for i in incs if truths[i["key"]]["novel"]]
    no_out = [name[i["key"]] for i in incs if not i["outcome"]]
    print("events", len(events))
    print("incidents", n, "pages", pages, "humans", n - pages)
    print("novel", len(novel), novel)
    print("without outcome", no_out)
    print("runbook null", sum(1 for i in incs if truths[i["key"]]["runbook"] is None))
    print("with unsafe", sum(1 for i in incs if truths[i["key"]]["unsafeRunbooks"]))
    print("first", incs[0]["at"], "last", incs[-1]["at"])
    for i in incs:
        tr = truths[i["key"]]
        print("%s %-4s %-6s %-8s %-5s %-20s %-38s prec=%s unsafe=%s" % (
            name[i["key"]], i["key"], i["family"], i["cond"], i["style"], i["service"],
            tr["runbook"], ",".join(p[-4:] for p in tr["precedents"]),
            ",".join(tr["unsafeRunbooks"])))


if __name__ == "__main__":
    main()
