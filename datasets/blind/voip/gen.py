#!/usr/bin/env python3
"""Generate history.jsonl: a fictional incident history of Brindle Voice,
a made-up cloud telephony (VoIP / UCaaS) provider.

Standard library only, deterministic: `python3 gen.py` rewrites the same file
byte for byte. The history is held as structured data below (platform,
topology, runbooks, migrations, contradictions, failure families, incidents
and their outcomes). Each incident's `truth` is derived from its family and
from the state of the world at the incident's time; nothing in `truth` is
written by hand per line.

`python3 gen.py --stats` also prints the counts used in README.md.
"""
import json
import os
import re
import sys
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "history.jsonl")
API = "recall.dev/v1alpha1"
OPS = "registry.brindle.example/voice-ops:2025.02"
KUBECTL = "bitnami/kubectl:1.30"
PSQL = "postgres:15"


def T(s):
    """'2025-02-06 03:12' -> RFC 3339 UTC."""
    d, h = s.split(" ")
    return f"{d}T{h}:00Z"


def minus(at, minutes):
    """at (RFC 3339) minus whole minutes, without any clock or tz library."""
    import datetime
    t = datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")
    return (t - datetime.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------
# Platform and topology (an edge means "calls")
# --------------------------------------------------------------------------
TOPOLOGY = OrderedDict([
    ("sbc", ["sip-edge", "call-router", "media-relay", "cdr-collector"]),
    ("sip-edge", ["registrar-cache", "subscriber-db", "call-router", "media-relay", "voicemail"]),
    ("media-relay", ["recording-store"]),
    ("call-router", ["subscriber-db", "number-porting", "registrar-cache"]),
    ("number-porting", ["subscriber-db"]),
    ("voicemail", ["recording-store", "subscriber-db", "sms-gateway"]),
    ("sms-gateway", ["subscriber-db", "cdr-collector"]),
    ("cdr-collector", ["billing-rater"]),
    ("billing-rater", ["subscriber-db"]),
    ("admin-portal", ["sso-idp", "subscriber-db", "number-porting", "billing-rater", "recording-store"]),
    ("sso-idp", ["subscriber-db"]),
    ("recording-store", []),
    ("subscriber-db", []),
    ("registrar-cache", []),
])

SYMPTOMS = {
    "registration-failure", "sip-5xx", "inbound-call-failure", "call-drop", "ack-timeout",
    "no-audio", "one-way-audio", "port-exhaustion", "queue-backlog", "message-delivery-failure",
    "porting-failure", "sip-404", "unrated-cdrs", "billing-backlog", "cdr-lag", "login-failure",
    "saml-error", "db-connection-exhaustion", "latency-spike", "5xx", "error-rate", "failover",
    "timeout", "parse-error",
}

# Architecture of the two migrated services, before any migration.
ARCH0 = {"registrar-cache": "sentinel-vms", "media-relay": "vms"}


# --------------------------------------------------------------------------
# Runbooks
# --------------------------------------------------------------------------
def step(name, image, command, dry, rollback, risk, blast, secs):
    return OrderedDict([
        ("name", name), ("image", image), ("command", command), ("dryRunCommand", dry),
        ("rollbackCommand", rollback), ("risk", risk), ("blastRadius", blast),
        ("estimatedSeconds", secs)])


def runbook(name, title, services, symptoms, steps):
    for s in symptoms:
        assert s in SYMPTOMS, (name, s)
    return OrderedDict([
        ("apiVersion", API), ("kind", "Runbook"),
        ("metadata", OrderedDict([("name", name)])),
        ("spec", OrderedDict([("title", title), ("services", services),
                              ("symptoms", symptoms), ("steps", steps)]))])


RB = {}

RB["registrar-sentinel-repoint-edge"] = runbook(
    "registrar-sentinel-repoint-edge",
    "Point the SIP edges at the registrar master that Sentinel elected",
    ["registrar-cache", "sip-edge"], ["registration-failure", "sip-5xx", "failover"],
    [step("ask-sentinel-for-master", "redis:6.2",
          ["redis-cli", "-h", "$(SENTINEL_HOST)", "-p", "26379", "SENTINEL", "get-master-addr-by-name", "registrar"],
          ["redis-cli", "-h", "$(SENTINEL_HOST)", "-p", "26379", "SENTINEL", "masters"],
          [], "low", "read only", 5),
     step("set-edge-master", KUBECTL,
          ["kubectl", "-n", "voice-prod", "patch", "configmap", "sip-edge-redis", "--type", "merge",
           "-p", "{\"data\":{\"REDIS_MASTER\":\"$(MASTER_ADDR)\"}}"],
          ["kubectl", "-n", "voice-prod", "patch", "configmap", "sip-edge-redis", "--type", "merge",
           "-p", "{\"data\":{\"REDIS_MASTER\":\"$(MASTER_ADDR)\"}}", "--dry-run=server"],
          ["kubectl", "-n", "voice-prod", "patch", "configmap", "sip-edge-redis", "--type", "merge",
           "-p", "{\"data\":{\"REDIS_MASTER\":\"$(OLD_MASTER_ADDR)\"}}"],
          "medium", "registrar writes of every SIP edge in $(REGION)", 10),
     step("reload-edge-redis-config", OPS,
          ["voice-ops", "edge", "reload-redis-config", "--region", "$(REGION)", "--batch", "2"],
          ["voice-ops", "edge", "reload-redis-config", "--region", "$(REGION)", "--dry-run"],
          [], "medium", "one SIP edge pod at a time in $(REGION)", 120)])

RB["sip-edge-reconnect-registrar"] = runbook(
    "sip-edge-reconnect-registrar",
    "Reopen the SIP edges' registrar connections after a managed Redis failover",
    ["sip-edge", "registrar-cache"], ["registration-failure", "sip-5xx", "failover"],
    [step("check-primary-role", "redis:7.2",
          ["redis-cli", "--tls", "-h", "$(REDIS_PRIMARY_ENDPOINT)", "ROLE"],
          ["redis-cli", "--tls", "-h", "$(REDIS_PRIMARY_ENDPOINT)", "ROLE"],
          [], "low", "read only", 5),
     step("reopen-ndb-redis-connections", OPS,
          ["voice-ops", "edge", "kamcmd", "--region", "$(REGION)", "--batch", "2", "--",
           "ndb_redis.reconnect", "registrar"],
          ["voice-ops", "edge", "kamcmd", "--region", "$(REGION)", "--dry-run", "--",
           "ndb_redis.reconnect", "registrar"],
          [], "medium", "one SIP edge pod at a time in $(REGION); in-flight REGISTERs retried by phones", 90),
     step("probe-register", OPS,
          ["voice-ops", "edge", "register-probe", "--region", "$(REGION)", "--count", "20"],
          ["voice-ops", "edge", "register-probe", "--region", "$(REGION)", "--count", "1"],
          [], "low", "test accounts only", 30)])

_kill_list = ("select pid, now()-state_change as idle from pg_stat_activity where usename='billing_batch' "
              "and state='idle in transaction' and now()-state_change > interval '5 minutes'")
_kill_do = ("select pg_terminate_backend(pid) from pg_stat_activity where usename='billing_batch' "
            "and state='idle in transaction' and now()-state_change > interval '5 minutes'")
RB_KILL_V1 = runbook(
    "subscriber-db-kill-idle-transactions",
    "End billing batch sessions left idle in transaction on the subscriber DB",
    ["subscriber-db", "billing-rater"], ["db-connection-exhaustion", "sip-5xx", "latency-spike"],
    [step("list-idle-in-transaction", PSQL,
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          [], "low", "read only", 5),
     step("terminate-idle-batch-sessions", PSQL,
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_do],
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          [], "medium", "billing_batch sessions only; the invoice run retries its open chunk", 10)])
RB_KILL_V2 = runbook(
    "subscriber-db-kill-idle-transactions",
    "End billing batch sessions left idle in transaction on the subscriber DB (rev 2: pause the invoice run first)",
    ["subscriber-db", "billing-rater"], ["db-connection-exhaustion", "sip-5xx", "latency-spike"],
    [step("pause-invoice-run", KUBECTL,
          ["kubectl", "-n", "billing", "patch", "cronjob", "invoice-run", "-p", "{\"spec\":{\"suspend\":true}}"],
          ["kubectl", "-n", "billing", "patch", "cronjob", "invoice-run", "-p", "{\"spec\":{\"suspend\":true}}",
           "--dry-run=server"],
          ["kubectl", "-n", "billing", "patch", "cronjob", "invoice-run", "-p", "{\"spec\":{\"suspend\":false}}"],
          "low", "month-end invoicing waits", 5),
     step("scale-invoice-workers-to-zero", KUBECTL,
          ["kubectl", "-n", "billing", "scale", "deployment", "invoice-worker", "--replicas=0"],
          ["kubectl", "-n", "billing", "scale", "deployment", "invoice-worker", "--replicas=0", "--dry-run=server"],
          ["kubectl", "-n", "billing", "scale", "deployment", "invoice-worker", "--replicas=$(PREVIOUS_REPLICAS)"],
          "low", "month-end invoicing waits", 20),
     step("list-idle-in-transaction", PSQL,
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          [], "low", "read only", 5),
     step("terminate-idle-batch-sessions", PSQL,
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_do],
          ["psql", "$(SUBSCRIBER_DB_URL)", "-c", _kill_list],
          [], "medium", "billing_batch sessions only", 10),
     step("resume-invoice-run-at-low-concurrency", KUBECTL,
          ["kubectl", "-n", "billing", "set", "env", "deployment/invoice-worker", "INVOICE_CONCURRENCY=4"],
          ["kubectl", "-n", "billing", "set", "env", "deployment/invoice-worker", "INVOICE_CONCURRENCY=4",
           "--dry-run=server"],
          ["kubectl", "-n", "billing", "set", "env", "deployment/invoice-worker", "INVOICE_CONCURRENCY=$(PREVIOUS_CONCURRENCY)"],
          "low", "invoice run only", 10)])
RB["subscriber-db-kill-idle-transactions"] = RB_KILL_V1

RB["sip-edge-force-nat-fixup"] = runbook(
    "sip-edge-force-nat-fixup",
    "Force NAT handling of Contact and SDP for one tenant on the SIP edges",
    ["sip-edge"], ["call-drop", "ack-timeout", "one-way-audio"],
    [step("show-tenant-contacts", OPS,
          ["voice-ops", "edge", "contacts", "--tenant", "$(TENANT)", "--show-received"],
          ["voice-ops", "edge", "contacts", "--tenant", "$(TENANT)", "--show-received"],
          [], "low", "read only", 10),
     step("set-nat-mode-force", OPS,
          ["voice-ops", "tenant", "set", "$(TENANT)", "nat_mode=force"],
          ["voice-ops", "tenant", "set", "$(TENANT)", "nat_mode=force", "--dry-run"],
          ["voice-ops", "tenant", "set", "$(TENANT)", "nat_mode=auto"],
          "low", "calls of one tenant", 15),
     step("reload-edge-tenant-table", OPS,
          ["voice-ops", "edge", "kamcmd", "--region", "$(REGION)", "--", "htable.reload", "tenant_nat"],
          ["voice-ops", "edge", "kamcmd", "--region", "$(REGION)", "--dry-run", "--", "htable.reload", "tenant_nat"],
          [], "low", "edge tenant table in $(REGION)", 20)])

RB["sbc-move-trunk-to-tcp"] = runbook(
    "sbc-move-trunk-to-tcp",
    "Move one carrier trunk's SIP signalling on the SBC from UDP to TCP",
    ["sbc"], ["call-drop", "ack-timeout"],
    [step("show-trunk", OPS,
          ["voice-ops", "sbc", "trunk", "show", "$(TRUNK)", "--with-stats"],
          ["voice-ops", "sbc", "trunk", "show", "$(TRUNK)", "--with-stats"],
          [], "low", "read only", 5),
     step("set-trunk-transport-tcp", OPS,
          ["voice-ops", "sbc", "trunk", "set-transport", "$(TRUNK)", "tcp"],
          ["voice-ops", "sbc", "trunk", "set-transport", "$(TRUNK)", "tcp", "--dry-run"],
          ["voice-ops", "sbc", "trunk", "set-transport", "$(TRUNK)", "udp"],
          "medium", "new calls on one carrier trunk", 30),
     step("test-call", OPS,
          ["voice-ops", "sbc", "test-call", "--trunk", "$(TRUNK)", "--hold", "60s"],
          ["voice-ops", "sbc", "test-call", "--trunk", "$(TRUNK)", "--hold", "1s"],
          [], "low", "one test call", 75)])

RB["sms-gateway-rebind-smpp"] = runbook(
    "sms-gateway-rebind-smpp",
    "Tear down and re-establish the SMPP binds of one upstream SMSC link",
    ["sms-gateway"], ["queue-backlog", "message-delivery-failure"],
    [step("show-binds", OPS,
          ["voice-ops", "smpp", "binds", "--link", "$(SMPP_LINK)"],
          ["voice-ops", "smpp", "binds", "--link", "$(SMPP_LINK)"],
          [], "low", "read only", 5),
     step("rebind-link", OPS,
          ["voice-ops", "smpp", "rebind", "--link", "$(SMPP_LINK)", "--stagger", "10s"],
          ["voice-ops", "smpp", "rebind", "--link", "$(SMPP_LINK)", "--dry-run"],
          [], "low", "outbound SMS on one SMSC link pauses for about a minute", 60)])

_resync_v1 = [
    step("list-upstream-activations", OPS,
         ["voice-ops", "porting", "activations", "--since", "72h", "--state", "activated-upstream"],
         ["voice-ops", "porting", "activations", "--since", "72h", "--state", "activated-upstream"],
         [], "low", "read only", 20),
    step("apply-missed-activations", OPS,
         ["voice-ops", "porting", "apply-activations", "--since", "72h"],
         ["voice-ops", "porting", "apply-activations", "--since", "72h", "--dry-run"],
         ["voice-ops", "porting", "undo-activations", "--batch", "$(BATCH_ID)"],
         "medium", "numbers of the affected port orders", 60),
    step("reload-router-routes", OPS,
         ["voice-ops", "router", "reload-routes", "--tns-from-batch", "$(BATCH_ID)"],
         ["voice-ops", "router", "reload-routes", "--tns-from-batch", "$(BATCH_ID)", "--dry-run"],
         [], "low", "route cache entries of those numbers", 30)]
RB_RESYNC_V1 = runbook(
    "number-porting-resync-activations",
    "Apply port-in activations the porting partner completed but we never recorded",
    ["number-porting", "call-router"], ["inbound-call-failure", "porting-failure", "sip-404"],
    _resync_v1)
RB_RESYNC_V2 = runbook(
    "number-porting-resync-activations",
    "Apply port-in activations the porting partner completed but we never recorded (rev 2: partial ports)",
    ["number-porting", "call-router"], ["inbound-call-failure", "porting-failure", "sip-404"],
    [_resync_v1[0],
     step("apply-missed-activations", OPS,
          ["voice-ops", "porting", "apply-activations", "--since", "72h", "--include-partial-orders", "--per-tn"],
          ["voice-ops", "porting", "apply-activations", "--since", "72h", "--include-partial-orders", "--per-tn",
           "--dry-run"],
          ["voice-ops", "porting", "undo-activations", "--batch", "$(BATCH_ID)"],
          "medium", "numbers of the affected port orders", 90),
     _resync_v1[2]])
RB["number-porting-resync-activations"] = RB_RESYNC_V1

RB["billing-rater-restore-rate-deck"] = runbook(
    "billing-rater-restore-rate-deck",
    "Reactivate a carrier's previous rate deck and re-rate the suspense queue",
    ["billing-rater"], ["unrated-cdrs", "billing-backlog"],
    [step("diff-decks", OPS,
          ["voice-ops", "rater", "deck", "diff", "--carrier", "$(CARRIER)", "--from", "previous", "--to", "active"],
          ["voice-ops", "rater", "deck", "diff", "--carrier", "$(CARRIER)", "--from", "previous", "--to", "active"],
          [], "low", "read only", 20),
     step("activate-previous-deck", OPS,
          ["voice-ops", "rater", "deck", "activate", "--carrier", "$(CARRIER)", "--version", "previous"],
          ["voice-ops", "rater", "deck", "activate", "--carrier", "$(CARRIER)", "--version", "previous", "--dry-run"],
          ["voice-ops", "rater", "deck", "activate", "--carrier", "$(CARRIER)", "--version", "$(ACTIVE_VERSION)"],
          "medium", "prices of one carrier's routes", 15),
     step("rerate-suspense", OPS,
          ["voice-ops", "rater", "suspense", "rerate", "--carrier", "$(CARRIER)", "--since", "$(SINCE)"],
          ["voice-ops", "rater", "suspense", "rerate", "--carrier", "$(CARRIER)", "--since", "$(SINCE)", "--dry-run"],
          [], "medium", "CDRs in suspense for one carrier", 600)])

RB["cdr-collector-skip-corrupt-file"] = runbook(
    "cdr-collector-skip-corrupt-file",
    "Set aside a truncated SBC CDR file that blocks the collector, and ask for a re-export",
    ["cdr-collector", "sbc"], ["billing-backlog", "cdr-lag", "parse-error"],
    [step("show-cursor", OPS,
          ["voice-ops", "cdr", "cursor", "show", "--with-last-error"],
          ["voice-ops", "cdr", "cursor", "show", "--with-last-error"],
          [], "low", "read only", 5),
     step("hold-file", OPS,
          ["voice-ops", "cdr", "file", "hold", "$(FILE)"],
          ["voice-ops", "cdr", "file", "hold", "$(FILE)", "--dry-run"],
          ["voice-ops", "cdr", "file", "release", "$(FILE)"],
          "low", "one CDR file", 5),
     step("advance-cursor", OPS,
          ["voice-ops", "cdr", "cursor", "advance", "--past", "$(FILE)"],
          ["voice-ops", "cdr", "cursor", "advance", "--past", "$(FILE)", "--dry-run"],
          ["voice-ops", "cdr", "cursor", "set", "$(PREVIOUS_CURSOR)"],
          "low", "CDR ingest order", 5),
     step("request-sbc-reexport", OPS,
          ["voice-ops", "sbc", "cdr", "reexport", "--node", "$(SBC_NODE)", "--window", "$(WINDOW)"],
          ["voice-ops", "sbc", "cdr", "reexport", "--node", "$(SBC_NODE)", "--window", "$(WINDOW)", "--dry-run"],
          [], "low", "one export window of one SBC node", 120)])

RB["cdr-collector-restart-workers"] = runbook(
    "cdr-collector-restart-workers",
    "Restart the CDR collector workers",
    ["cdr-collector"], ["cdr-lag", "billing-backlog"],
    [step("rollout-restart", KUBECTL,
          ["kubectl", "-n", "billing", "rollout", "restart", "deployment/cdr-collector"],
          ["kubectl", "-n", "billing", "rollout", "restart", "deployment/cdr-collector", "--dry-run=server"],
          [], "low", "CDR ingest pauses for about a minute", 90)])

RB["media-relay-drain-vm"] = runbook(
    "media-relay-drain-vm",
    "Take one rtpengine relay VM out of the edge's set, restart it and put it back",
    ["media-relay", "sip-edge"], ["no-audio", "one-way-audio", "port-exhaustion"],
    [step("disable-relay-in-set", OPS,
          ["voice-ops", "edge", "rtpengine-set", "disable", "$(RELAY_VM)"],
          ["voice-ops", "edge", "rtpengine-set", "show"],
          ["voice-ops", "edge", "rtpengine-set", "enable", "$(RELAY_VM)"],
          "medium", "new calls avoid one relay VM", 10),
     step("restart-rtpengine-on-vm", "alpine/ssh:9.6",
          ["ssh", "ops@$(RELAY_VM)", "sudo", "systemctl", "restart", "ngcp-rtpengine-daemon"],
          ["ssh", "ops@$(RELAY_VM)", "sudo", "systemctl", "status", "ngcp-rtpengine-daemon"],
          [], "high", "calls still anchored on that relay VM lose audio", 30),
     step("enable-relay-in-set", OPS,
          ["voice-ops", "edge", "rtpengine-set", "enable", "$(RELAY_VM)"],
          ["voice-ops", "edge", "rtpengine-set", "show"],
          ["voice-ops", "edge", "rtpengine-set", "disable", "$(RELAY_VM)"],
          "low", "one relay VM", 10)])

RB["media-relay-recycle-pod"] = runbook(
    "media-relay-recycle-pod",
    "Take one rtpengine pod out of the edge's set, replace it and put the new one in",
    ["media-relay", "sip-edge"], ["no-audio", "one-way-audio", "port-exhaustion"],
    [step("disable-relay-in-set", OPS,
          ["voice-ops", "edge", "rtpengine-set", "disable", "$(RELAY_POD)"],
          ["voice-ops", "edge", "rtpengine-set", "show"],
          ["voice-ops", "edge", "rtpengine-set", "enable", "$(RELAY_POD)"],
          "medium", "new calls avoid one relay pod", 10),
     step("delete-relay-pod", KUBECTL,
          ["kubectl", "-n", "media", "delete", "pod", "$(RELAY_POD)", "--grace-period=120"],
          ["kubectl", "-n", "media", "delete", "pod", "$(RELAY_POD)", "--dry-run=server"],
          [], "high", "calls still anchored on that pod lose audio", 150),
     step("enable-replacement", OPS,
          ["voice-ops", "edge", "rtpengine-set", "sync", "--namespace", "media"],
          ["voice-ops", "edge", "rtpengine-set", "sync", "--namespace", "media", "--dry-run"],
          [], "low", "relay set of the edges", 15)])

RB["sso-refresh-idp-metadata"] = runbook(
    "sso-refresh-idp-metadata",
    "Re-import a tenant's SAML IdP metadata and signing certificates",
    ["sso-idp", "admin-portal"], ["login-failure", "saml-error"],
    [step("diff-metadata", OPS,
          ["voice-ops", "sso", "metadata", "diff", "--tenant", "$(TENANT)"],
          ["voice-ops", "sso", "metadata", "diff", "--tenant", "$(TENANT)"],
          [], "low", "read only", 10),
     step("import-metadata", OPS,
          ["voice-ops", "sso", "metadata", "import", "--tenant", "$(TENANT)", "--from-url"],
          ["voice-ops", "sso", "metadata", "import", "--tenant", "$(TENANT)", "--from-url", "--dry-run"],
          ["voice-ops", "sso", "metadata", "import", "--tenant", "$(TENANT)", "--version", "previous"],
          "low", "SSO sign-in of one tenant", 15)])

RB["deploy-rollback-release"] = runbook(
    "deploy-rollback-release",
    "Roll a Helm release back to its previous revision",
    ["call-router", "sms-gateway", "sip-edge", "voicemail", "number-porting", "admin-portal",
     "sso-idp", "billing-rater"],
    ["error-rate", "sip-5xx", "5xx"],
    [step("helm-history", "alpine/helm:3.15",
          ["helm", "-n", "$(NAMESPACE)", "history", "$(RELEASE)", "--max", "5"],
          ["helm", "-n", "$(NAMESPACE)", "history", "$(RELEASE)", "--max", "5"],
          [], "low", "read only", 5),
     step("helm-rollback", "alpine/helm:3.15",
          ["helm", "-n", "$(NAMESPACE)", "rollback", "$(RELEASE)", "$(PREVIOUS_REVISION)", "--wait"],
          ["helm", "-n", "$(NAMESPACE)", "rollback", "$(RELEASE)", "$(PREVIOUS_REVISION)", "--dry-run"],
          ["helm", "-n", "$(NAMESPACE)", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "--wait"],
          "medium", "every pod of one release", 240)])

# When each runbook applies to an architecture (None: any).
RB_ARCH = {
    "registrar-sentinel-repoint-edge": ("registrar-cache", "sentinel-vms"),
    "sip-edge-reconnect-registrar": ("registrar-cache", "managed-redis"),
    "media-relay-drain-vm": ("media-relay", "vms"),
    "media-relay-recycle-pod": ("media-relay", "kubernetes"),
}


# --------------------------------------------------------------------------
# Migrations and contradictions
# --------------------------------------------------------------------------
MIGRATIONS = [
    dict(at=T("2025-05-10 06:00"), name="registrar-cache-sentinel-to-managed-redis",
         target="registrar-cache", date="2025-05-10", arch="managed-redis",
         old="Redis 6.2 primary and two replicas on VMs in iad1 and ams1, failover by Redis Sentinel",
         new="Managed Redis 7.1 replication group per region, multi-AZ, automatic failover behind a primary endpoint DNS name",
         impacted=["registrar-sentinel-repoint-edge"],
         keywords=["SENTINEL get-master-addr-by-name", "sentinel failover", "REDIS_MASTER"],
         deduction=30),
    dict(at=T("2025-07-15 05:00"), name="media-relay-vms-to-kubernetes",
         target="media-relay", date="2025-07-15", arch="kubernetes",
         old="rtpengine with kernel forwarding on 6 VMs (relay-vm-1..3 per region), managed over ssh/systemd",
         new="rtpengine as a hostNetwork DaemonSet on a dedicated media node pool, one relay pod per node",
         impacted=["media-relay-drain-vm"],
         keywords=["systemctl restart ngcp-rtpengine-daemon", "relay-vm"],
         deduction=28),
]

CONTRADICTIONS = [
    dict(name="sip-calls-drop-at-32-seconds", topic="answered calls drop after about 32 seconds",
         versions=[
             dict(at=T("2025-04-29 10:00"), memories=["A1", "A2", "A3", "T1"], state="open",
                  claims=[("A1", "set nat_mode=force for the tenant on the edges; the site's router rewrote the Contact and our ACK went to a private address"),
                          ("A3", "forcing NAT handling for the tenant stopped the drops at once"),
                          ("T1", "forcing NAT handling for the tenant changed nothing; ACKs with SDP toward Telvana were fragmented over UDP and dropped, and moving the Telvana trunk to TCP stopped the drops")]),
             dict(at=T("2025-07-24 16:00"), memories=["A1", "A2", "A3", "A4", "A5", "T1", "T2", "T3"], state="reconciled",
                  claims=[("A1", "set nat_mode=force for the tenant on the edges; the site's router rewrote the Contact and our ACK went to a private address"),
                          ("A4", "moving a carrier trunk to TCP did nothing for a one-site tenant; forcing NAT handling for the tenant fixed it"),
                          ("T1", "forcing NAT handling for the tenant changed nothing; ACKs with SDP toward Telvana were fragmented over UDP and dropped, and moving the Telvana trunk to TCP stopped the drops"),
                          ("T3", "moving the Arcwave trunk to TCP stopped 32-second drops seen by many tenants")],
                  note=("Both fixes hold, under different conditions. Drops confined to one tenant or one site, on every "
                        "carrier, with our ACK or in-dialog requests sent to a private Contact (10/8, 172.16/12, "
                        "192.168/16), usually after the customer changed router or firewall (SIP ALG): force NAT "
                        "handling for that tenant (sip-edge-force-nat-fixup); moving trunks does nothing (vc-A4). Drops across many "
                        "tenants on calls through one carrier trunk, with ACKs carrying SDP above about 1,300 bytes "
                        "and IP fragments in the capture, usually after the carrier asked for delayed offer or SRTP: "
                        "move that trunk to TCP (sbc-move-trunk-to-tcp); tenant NAT flags do nothing (vc-T1)."))]),
    dict(name="billing-rating-backlog", topic="CDRs waiting to be rated pile up on billing-rater",
         versions=[
             dict(at=T("2025-06-16 11:00"), memories=["B1", "B2", "B3", "CF1"], state="open",
                  claims=[("B1", "the weekly carrier rate deck dropped prefixes; reactivating the previous deck and re-rating suspense cleared the backlog"),
                          ("B2", "restarting the collector did nothing; reactivating the previous Arcwave deck cleared it"),
                          ("CF1", "reactivating the previous deck did nothing; the collector was stuck on a truncated SBC CDR file and setting that file aside cleared the backlog")]),
             dict(at=T("2025-09-12 15:00"), memories=["B1", "B2", "B3", "B4", "B5", "CF1", "CF2", "CF3"], state="reconciled",
                  claims=[("B2", "restarting the collector did nothing; reactivating the previous Arcwave deck cleared it"),
                          ("B5", "after the Meridia deck import only Meridia routes were unrated; the previous deck fixed it"),
                          ("CF1", "reactivating the previous deck did nothing; the collector was stuck on a truncated SBC CDR file and setting that file aside cleared the backlog"),
                          ("CF3", "newest CDR hours old and one file name repeating in parse errors; setting the file aside fixed it")],
                  note=("Both fixes hold, under different conditions. If CDR files keep arriving (newest CDR "
                        "received seconds ago, collector cursor moving) and the waiting CDRs sit in rating "
                        "suspense for one carrier's routes after that carrier's weekly deck import, reactivate "
                        "the previous deck (billing-rater-restore-rate-deck). If the newest CDR is hours old and "
                        "the collector logs the same file name in parse errors (a truncated file after an SBC "
                        "reboot or full disk), set that file aside (cdr-collector-skip-corrupt-file); decks and "
                        "collector restarts do nothing there (vc-CF1)."))]),
]


# --------------------------------------------------------------------------
# Failure families. `fixes`: runbooks in order of preference; the right
# runbook at time t is the first one applied before t, not made stale by a
# migration before t, and fitting the architecture at t.
# --------------------------------------------------------------------------
FAMILIES = OrderedDict([
    ("REGFAIL", dict(root="registrar-cache", fixes=["registrar-sentinel-repoint-edge", "sip-edge-reconnect-registrar"],
                     what="registrar Redis fails over, the SIP edges keep writing registrations to the old primary (now a replica) and get READONLY")),
    ("DBCONN", dict(root="subscriber-db", fixes=["subscriber-db-kill-idle-transactions"],
                    what="month-end invoice run leaves billing_batch sessions idle in transaction; PgBouncer pool of subscriber-db full; edge lookups and portal fail")),
    ("ALG30", dict(root="sip-edge", fixes=["sip-edge-force-nat-fixup"],
                   what="one tenant site's router (SIP ALG) rewrites Contact; ACK goes to a private address; calls drop at 32 s")),
    ("TRUNKFRAG", dict(root="sbc", fixes=["sbc-move-trunk-to-tcp"],
                       what="one carrier trunk on UDP with delayed offer or SRTP: ACKs with SDP fragment and are dropped; many tenants' calls drop at 32 s")),
    ("SMSBIND", dict(root="sms-gateway", fixes=["sms-gateway-rebind-smpp"],
                     what="SMPP binds half-open after upstream SMSC maintenance; gateway thinks they are bound; outbound queue grows")),
    ("PORTING", dict(root="number-porting", fixes=["number-porting-resync-activations"],
                     what="port-in activated upstream but the partner's activation never recorded here; calls to ported numbers get no route")),
    ("RATEDECK", dict(root="billing-rater", fixes=["billing-rater-restore-rate-deck"],
                      what="weekly carrier rate deck import drops or garbles prefixes; CDRs of those routes land in rating suspense")),
    ("CDRFILE", dict(root="cdr-collector", fixes=["cdr-collector-skip-corrupt-file"],
                     what="a truncated SBC CDR file blocks the collector; nothing reaches billing-rater")),
    ("MEDIA", dict(root="media-relay", fixes=["media-relay-drain-vm", "media-relay-recycle-pod"],
                   what="orphaned rtpengine sessions after edge crashes exhaust one relay's port range; new calls there get no audio")),
    ("SSO", dict(root="sso-idp", fixes=["sso-refresh-idp-metadata"],
                 what="a customer rotates its IdP SAML signing certificate; our stored metadata only has the old one")),
    # one-offs
    ("X-SESSIONTIMER", dict(root="sbc", fixes=[], what="SBC profile cleanup broke session-timer re-INVITEs from NorthPeak; calls drop at 15:00")),
    ("X-ROUTER714", dict(root="call-router", fixes=["deploy-rollback-release"],
                         what="call-router 7.14.0 normalisation stopped matching national-format toll-free numbers")),
    ("X-10DLC", dict(root="sms-gateway", fixes=[], what="a tenant's 10DLC campaign suspended by the registry; carriers reject its texts")),
])


# --------------------------------------------------------------------------
# Incidents. kind "page" = written by the alert bridge, "report" = by people.
# Keys such as R1 are resolved to vc-NNNN names after time ordering; text may
# refer to other incidents as {KEY}.
# --------------------------------------------------------------------------
INC = []


def page(key, fam, at, service, alertname, instance, sev, annotation, region, namespace, team,
         symptoms=(), extra_labels=None, started=6, deployment=None, outcome=None, firing=1):
    labels = OrderedDict([("source", "alert-bridge"), ("alertname", alertname), ("severity", sev),
                          ("namespace", namespace), ("region", region), ("team", team)])
    for k, v in (extra_labels or {}).items():
        labels[k] = v
    isev = {"critical": "critical", "major": "high", "warning": "medium", "info": "low"}[sev]
    title = f"[FIRING:{firing}] {alertname} {instance}"
    INC.append(dict(key=key, fam=fam, at=T(at), kind="page", service=service, severity=isev, title=title,
                    description=annotation, symptoms=list(symptoms), errors=[], labels=labels,
                    started=started, deployment=deployment, outcome=outcome))


def report(key, fam, at, service, severity, title, description, symptoms, labels, errors=(),
           started=30, deployment=None, outcome=None):
    INC.append(dict(key=key, fam=fam, at=T(at), kind="report", service=service, severity=severity,
                    title=title, description=description, symptoms=list(symptoms), errors=list(errors),
                    labels=OrderedDict(labels), started=started, deployment=deployment, outcome=outcome))


def dep(id_, rev, minutes, env="production"):
    return OrderedDict([("id", id_), ("revision", rev), ("environment", env), ("minutesSinceDeploy", minutes)])


def out(at, root, summary, by, actions, runbook="auto"):
    """actions: (runbook or None, text, result)."""
    return dict(at=T(at), root=root, summary=summary, by=by, actions=actions, runbook=runbook)


def lab(source, region, team, **kw):
    d = OrderedDict([("source", source), ("region", region), ("team", team)])
    for k, v in kw.items():
        d[k] = v
    return d


REG_ANN = "REGISTER 5xx ratio above 20% for 5m on sip-edge in {r} (current {v})"
BACKLOG_ANN = "CDRs waiting to be rated above 50k for 15m (current {n}; newest CDR received {age} ago)"
NOROUTE_ANN = "inbound INVITEs with no route above 2/min for 10m (current {v}/min)"
PORTS_ANN = "free RTP ports on {i} below 2% ({f} of 20000)"
SMSQ_ANN = "outbound SMS queue above 5k for 10m (current {n})"

# ---------------- February ----------------
page("R1", "REGFAIL", "2025-02-06 03:12", "sip-edge", "KamailioRegisterFailureRatio", "sip-edge (iad1)",
     "critical", REG_ANN.format(r="iad1", v="0.47"), "iad1", "voice-prod", "voice-core",
     outcome=out("2025-02-06 03:49",
                 "Sentinel failed the registrar over from redis-vm-1 to redis-vm-2 during hypervisor maintenance; the edges kept writing registrations to redis-vm-1, now a replica, and got READONLY.",
                 "REGISTER 500s on every iad1 edge after a Sentinel failover of registrar-cache. The edges read the registrar master once from the sip-edge-redis ConfigMap, so they stayed on the demoted node. Pointing them at the new master cleared the errors within two minutes.",
                 "jonas.weber",
                 [("registrar-sentinel-repoint-edge", "master redis-vm-2, edges reloaded two at a time", "succeeded")]))

report("A1", "ALG30", "2025-02-11 15:40", "sip-edge", "medium",
       "calls dropping at 30s for Acme", "Acme support line: every answered call drops after ~30 sec. Started this morning.",
       ["call-drop"], lab("support-ticket", "iad1", "voice-core", reporter="beth.ramsey", customer="acme"),
       started=300,
       outcome=out("2025-02-11 18:05",
                   "Acme's new office router has SIP ALG on and rewrote the Contact of their phones' 200 OK to 192.168.10.x; the edge sent the ACK to the private address, the phones retransmitted 200 OK for 32 s (Timer H) and hung up.",
                   "All answered calls of tenant acme dropped at 32 s, other tenants fine. A capture on the edge showed ACKs going to 192.168.10.21. Setting NAT handling to force for the tenant by hand made the edge use the received address; drops stopped. Acme was asked to turn off SIP ALG.",
                   "li.mei",
                   [(None, "set nat_mode=force for tenant acme by hand (kamcmd htable.sets tenant_nat acme force on each iad1 edge, plus the tenant row in subscriber-db)", "succeeded")]))

page("S1", "SMSBIND", "2025-02-19 13:05", "sms-gateway", "SmsOutboundQueueDepth", "sms-gateway (iad1)",
     "major", SMSQ_ANN.format(n="18,412"), "iad1", "messaging", "messaging",
     outcome=out("2025-02-19 13:40",
                 "After Telvana's SMSC maintenance the firewall had dropped the idle SMPP TCP sessions; the gateway still counted four binds as bound and got no submit_sm_resp, so the window filled and the queue grew.",
                 "Outbound SMS stalled on link telvana-1 with all binds shown as bound. Re-establishing the binds of that link emptied the 18k queue in six minutes.",
                 "rafael.souza",
                 [("sms-gateway-rebind-smpp", "link telvana-1", "succeeded")]))

page("MD1", "MEDIA", "2025-02-25 19:22", "media-relay", "RtpenginePortsExhausted", "media-relay (relay-vm-3.iad1)",
     "critical", PORTS_ANN.format(i="relay-vm-3", f="312"), "iad1", "media", "voice-core",
     symptoms=["port-exhaustion"],
     outcome=out("2025-02-25 20:10",
                 "Two sip-edge crashes that afternoon never sent rtpengine delete for their live dialogs; about 9,800 orphaned sessions stayed on relay-vm-3 until the 3600 s timeout and used up its port range.",
                 "New calls anchored on relay-vm-3 had no audio. Taking the VM out of the edges' rtpengine set, restarting rtpengine there and putting it back freed the ports.",
                 "dana.kim",
                 [("media-relay-drain-vm", "relay-vm-3", "succeeded")]))

# ---------------- March ----------------
page("D1", "DBCONN", "2025-03-01 02:41", "sip-edge", "KamailioRegisterFailureRatio", "sip-edge (iad1)",
     "critical", REG_ANN.format(r="iad1", v="0.31"), "iad1", "voice-prod", "voice-core",
     outcome=out("2025-03-01 04:20",
                 "The month-end invoice run of billing-rater left about 180 billing_batch sessions idle in transaction; PgBouncer's subscriber-db pool was full and the edges' credential lookups timed out, so REGISTER got 500.",
                 "Looked like the February registrar failover but was not: Sentinel's master had not changed. PgBouncer showed 200+ clients waiting. Restarting PgBouncer gave six minutes of relief. Ending the idle-in-transaction billing_batch sessions by hand emptied the pool for good.",
                 "tomasz.nowak",
                 [("registrar-sentinel-repoint-edge", "master unchanged (redis-vm-2), errors continued", "failed"),
                  (None, "restarted pgbouncer pods", "partial"),
                  (None, "ended billing_batch sessions idle in transaction with pg_terminate_backend by hand", "succeeded")]))

report("P1", "PORTING", "2025-03-10 14:30", "call-router", "high",
       "Tamarack Realty ported numbers not receiving calls",
       "Tamarack ported 42 numbers from their old carrier last Friday. Since this morning callers get 'the number you have dialed is not in service'. Portal still shows the port order as Pending.",
       ["inbound-call-failure", "porting-failure"],
       lab("support-ticket", "iad1", "numbers", reporter="beth.ramsey", customer="tamarack-realty"),
       errors=["call-router: no route for +15125550143 (tn_state=pending_port)"], started=240,
       outcome=out("2025-03-10 17:55",
                   "The porting partner's activation webhook for the order got 401 from number-porting (we had rotated the signing secret and not told them) and gave up after three retries; the numbers were active upstream and pending here.",
                   "42 ported numbers had no route because our side never recorded the activation. Marked the numbers active by SQL and reloaded call-router's routes by hand; calls arrived. Partner got the new secret.",
                   "kenji.sato",
                   [(None, "set the 42 TNs active by SQL in the porting schema and reloaded the call-router route cache by hand", "succeeded")]))

report("A2", "ALG30", "2025-03-12 16:10", "sip-edge", "medium",
       "Pinecrest Logistics: inbound calls cut off after half a minute",
       "Pinecrest dispatch says every inbound call cuts off after about 30 seconds since they moved into the new warehouse. Other customers look fine. Edge log shows the ACK relayed to 192.168.1.40:5060.",
       ["call-drop", "ack-timeout"],
       lab("slack", "iad1", "voice-core", reporter="amara.okafor", customer="pinecrest-logistics"),
       errors=["relaying ACK to sip:2001@192.168.1.40:5060"], started=90,
       outcome=out("2025-03-12 16:45",
                   "The warehouse's router (SIP ALG) rewrote the phones' Contact to the LAN address; ACKs went to 192.168.1.40.",
                   "Single-tenant 32-second drops from one site. Forcing NAT handling for the tenant fixed it; customer told to disable SIP ALG.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant pinecrest-logistics", "succeeded")]))

report("R2", "REGFAIL", "2025-03-19 08:25", "sip-edge", "high",
       "Desk phones showing 'No Service' for several customers",
       "Support has 14 tickets since 07:00 (Halverson Dental, Orbis Legal and others): Yealinks show No Service, inbound calls get 480. sip-edge logs are full of READONLY errors from ndb_redis.",
       ["registration-failure", "inbound-call-failure"],
       lab("support-ticket", "iad1", "voice-core", reporter="beth.ramsey"),
       errors=["ERROR: ndb_redis [redis_client.c:1112]: READONLY You can't write against a read only replica."],
       started=90,
       outcome=out("2025-03-19 09:30",
                   "redis-vm-2 lost its network for 40 s at 06:52; Sentinel promoted redis-vm-3 and the edges stayed on redis-vm-2.",
                   "Registrations expired one by one as the edges' writes went to a replica. A rolling restart of the edges did nothing because they read the same old master from the ConfigMap. Pointing them at the Sentinel master fixed it.",
                   "jonas.weber",
                   [(None, "rolling restart of the sip-edge statefulset", "failed"),
                    ("registrar-sentinel-repoint-edge", "master redis-vm-3", "succeeded")]))

report("B1", "RATEDECK", "2025-03-24 10:05", "billing-rater", "medium",
       "~8% of Sunday's calls rated at $0.00",
       "Finance noticed about 8% of yesterday's outbound calls show zero charge on prepaid accounts, mostly mobile destinations in MX and CO. The weekly NorthPeak deck went in Sunday night.",
       ["unrated-cdrs", "billing-backlog"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       deployment=dep("ratedeck-northpeak-2025w12", "2025w12", 640), started=120,
       outcome=out("2025-03-24 15:20",
                   "NorthPeak added an effective_to column to its CSV; the importer shifted fields and about 3,100 prefixes got no rate, so their CDRs went to rating suspense and prepaid balances were not charged.",
                   "Unrated CDRs only on NorthPeak mobile prefixes after the weekly deck import. Reactivated deck 2025w11 by SQL and re-rated 61k CDRs from suspense by hand; importer fixed the next day.",
                   "omar.haddad",
                   [(None, "reactivated NorthPeak deck 2025w11 by SQL and re-rated the suspense queue by hand", "succeeded")]))

report("S2", "SMSBIND", "2025-03-27 18:45", "sms-gateway", "high",
       "2FA codes not arriving (Kestrel Freight drivers)",
       "Kestrel says drivers haven't received login codes for ~40 min. Our outbound queue is at 9k and climbing; gateway dashboard says all binds up but submit_sm_resp rate is zero.",
       ["message-delivery-failure", "queue-backlog"],
       lab("support-ticket", "iad1", "messaging", reporter="grace.lin", customer="kestrel-freight"),
       started=45,
       outcome=out("2025-03-27 19:20",
                   "Arcwave's SMSC failed over to its standby site; the old TCP sessions were silently dropped on their side and our binds stayed half-open.",
                   "Queue grew while binds looked healthy. Re-establishing the Arcwave binds cleared it.",
                   "rafael.souza",
                   [("sms-gateway-rebind-smpp", "link arcwave-1", "succeeded")]))

# ---------------- April ----------------
page("D2", "DBCONN", "2025-04-01 02:18", "subscriber-db", "PgBouncerClientsWaiting", "subscriber-db (iad1)",
     "major", "pgbouncer cl_waiting above 50 for 5m on pool subscribers (current 212)", "iad1", "data", "data",
     outcome=out("2025-04-01 02:55",
                 "Month-end invoice run again left billing_batch sessions idle in transaction and filled the pool.",
                 "Same as the March month-end. Ending the idle batch sessions freed the pool; REGISTER errors on the edges stopped.",
                 "tomasz.nowak",
                 [("subscriber-db-kill-idle-transactions", "164 sessions ended", "succeeded")]))

report("O1", "SSO", "2025-04-03 13:20", "admin-portal", "medium",
       "Orbis Legal admins can't sign in to the portal via SSO",
       "Orbis IT says all their admins get 'Sign-in failed' after the Entra redirect since this morning. Other SSO customers OK.",
       ["login-failure", "saml-error"],
       lab("support-ticket", "iad1", "identity", reporter="beth.ramsey", customer="orbis-legal"),
       errors=["SAML response signature validation failed: no trusted key matches (tenant=orbis-legal)"],
       started=200,
       outcome=out("2025-04-03 15:10",
                   "Orbis rotated the SAML signing certificate of its Entra ID app; our stored IdP metadata only had the old certificate.",
                   "One tenant's SSO failed on signature validation after its IdP certificate rotation. Pasted the new certificate from Orbis' federation metadata into the tenant's SSO config by hand; sign-in worked.",
                   "sofia.marin",
                   [(None, "added the new signing certificate from Orbis' federation metadata to the tenant config by hand", "succeeded")]))

page("A3", "ALG30", "2025-04-08 11:02", "sip-edge", "KamailioAckTimeoutRate", "sip-edge (iad1) tenant=halverson-dental",
     "warning", "Timer H expiries above 5/min for tenant halverson-dental (current 11/min)", "iad1", "voice-prod",
     "voice-core", extra_labels={"tenant": "halverson-dental"},
     outcome=out("2025-04-08 11:40",
                 "Halverson's new clinic site router with SIP ALG rewrote Contact headers.",
                 "Only the new clinic site of the tenant dropped calls at 32 s. NAT handling forced for the tenant; drops stopped.",
                 "li.mei",
                 [("sip-edge-force-nat-fixup", "tenant halverson-dental", "succeeded")]))

page("P2", "PORTING", "2025-04-14 09:40", "call-router", "CallRouterInboundNoRoute", "call-router (iad1)",
     "major", NOROUTE_ANN.format(v="9.5"), "iad1", "voice-prod", "numbers",
     outcome=out("2025-04-14 10:25",
                 "The porting partner had a six-hour webhook delivery outage on Sunday; three port orders (Copperline Auto and two others, 31 numbers) were activated upstream and never here.",
                 "Inbound calls to freshly ported numbers had no route. Applying the missed activations from the partner API and reloading the router routes fixed it.",
                 "kenji.sato",
                 [("number-porting-resync-activations", "3 orders, 31 TNs", "succeeded")]))

report("T1", "TRUNKFRAG", "2025-04-16 16:30", "sip-edge", "high",
       "Outbound calls dropping after ~30s across multiple customers",
       "Since ~14:00 we have drop complaints from Kestrel Freight, Marlow & Finch and Sable Pharmacy: outbound calls connect, audio is fine, then they drop at 32 s. Seems to be only calls leaving via Telvana. sbc logs show Telvana retransmitting 200 OK until it gives up and sends BYE. An SBC profile change for Telvana (delayed offer) went out at 13:40.",
       ["call-drop", "ack-timeout"],
       lab("slack", "iad1", "voice-core", reporter="amara.okafor"),
       errors=["BYE from telvana: Reason: Q.850;cause=102;text=\"recovery on timer expiry\""],
       deployment=dep("sbc-profile-telvana-delayed-offer", "r118", 170), started=150,
       outcome=out("2025-04-17 01:10",
                   "With delayed offer our ACK carries the SDP answer; SRTP crypto lines and nine codecs made it 1,612 bytes over UDP, the fragments were dropped by Telvana's border firewall and Telvana never saw an ACK.",
                   "Many tenants' outbound calls via Telvana dropped at 32 s after Telvana asked us for delayed offer. Forcing NAT handling for the first complaining tenant did nothing. A capture on the SBC showed the ACKs fragmented; switching the Telvana trunk to TCP by hand stopped the drops.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant kestrel-freight; drops continued, other tenants affected too", "failed"),
                    (None, "switched the Telvana trunk's transport to TCP in the SBC profile by hand", "succeeded")]))

report("R3", "REGFAIL", "2025-04-22 06:30", "registrar-cache", "high",
       "Registrar master changed overnight, edges still writing to the old one",
       "Hypervisor patching took redis-vm-3 down at 05:58 and Sentinel promoted redis-vm-1. sip-edge iad1 has been logging READONLY on usrloc writes since; REGISTER 500 around 30%.",
       ["registration-failure", "failover"],
       lab("oncall-report", "iad1", "voice-core", reporter="jonas.weber"),
       errors=["READONLY You can't write against a read only replica."], started=30,
       outcome=out("2025-04-22 06:55",
                   "Sentinel failover after hypervisor patching; edges still on the demoted node.",
                   "Third Sentinel failover this year. Edges pointed at the new master. Migration of the registrar to managed Redis is planned for May.",
                   "jonas.weber",
                   [("registrar-sentinel-repoint-edge", "master redis-vm-1", "succeeded")]))

page("B2", "RATEDECK", "2025-04-28 08:15", "billing-rater", "BillingRatingBacklog", "billing-rater (iad1)",
     "warning", BACKLOG_ANN.format(n="88,640", age="14s"), "iad1", "billing", "billing",
     outcome=out("2025-04-28 10:40",
                 "Arcwave's deck 2025w17 used decimal commas (0,0123); 40% of Arcwave prefixes parsed with no rate and their CDRs went to suspense.",
                 "Rating backlog on Monday morning. Restarting the collector did nothing (files were arriving). Reactivating Arcwave's previous deck and re-rating suspense cleared it.",
                 "omar.haddad",
                 [("cdr-collector-restart-workers", "backlog kept growing", "failed"),
                  ("billing-rater-restore-rate-deck", "carrier arcwave, 2025w16", "succeeded")]))

report("MD2", "MEDIA", "2025-04-30 20:10", "sbc", "high",
       "No audio on a chunk of new calls",
       "NOC: since ~19:30 roughly one in four new calls has no audio either way; calls already up are fine. All the silent ones are anchored on relay-vm-1.",
       ["no-audio", "port-exhaustion"],
       lab("noc", "iad1", "voice-core", reporter="kenji.sato"),
       errors=["rtpengine[1841]: ERR: [core] Failed to get 2 consecutive ports on all locals of logical 'pub'"],
       started=40,
       outcome=out("2025-04-30 20:55",
                   "A sip-edge OOM crash loop at 18:50 left thousands of rtpengine sessions without a delete on relay-vm-1.",
                   "One relay out of ports after edge crashes. Took relay-vm-1 out of the set, restarted rtpengine on it and put it back.",
                   "dana.kim",
                   [("media-relay-drain-vm", "relay-vm-1", "succeeded")]))

# ---------------- May ----------------
report("D3", "DBCONN", "2025-05-01 02:35", "admin-portal", "high",
       "Portal throwing 500s and edges failing auth lookups",
       "Woken by NOC: admin portal returns 500 on every page, sip-edge REGISTER failing ~25% with db query timeouts. pgbouncer says too many clients.",
       ["5xx", "registration-failure", "db-connection-exhaustion"],
       lab("oncall-report", "iad1", "data", reporter="tomasz.nowak"),
       errors=["FATAL: sorry, too many clients already", "db_postgres: query timeout (subscriber lookup)"],
       started=25,
       outcome=out("2025-05-01 04:05",
                   "Month-end invoice run; its workers retried and opened new idle-in-transaction sessions as fast as they were ended.",
                   "Ending the idle billing_batch sessions helped for two minutes, then the invoice workers reopened them. Suspended the invoice-run CronJob and scaled its workers to zero by hand, ended the sessions again and resumed the run at 06:00 with concurrency 4. The runbook got a revision with these steps.",
                   "tomasz.nowak",
                   [("subscriber-db-kill-idle-transactions", "sessions came back within two minutes", "partial"),
                    (None, "suspended CronJob billing/invoice-run, scaled invoice-worker to 0 and ended the sessions again by hand", "succeeded")],
                   runbook="subscriber-db-kill-idle-transactions"))

report("O2", "SSO", "2025-05-06 15:20", "admin-portal", "medium",
       "SSO broken for Lumen Bay Hotels",
       "Their admins see 'Invalid SAML response' after Okta login. Started after lunch. Okta shows successful auth on their side.",
       ["login-failure"],
       lab("support-ticket", "iad1", "identity", reporter="grace.lin", customer="lumen-bay-hotels"),
       started=120,
       outcome=out("2025-05-06 16:05",
                   "Lumen Bay rotated its Okta app signing certificate.",
                   "Re-imported the tenant's IdP metadata; sign-in worked.",
                   "sofia.marin",
                   [("sso-refresh-idp-metadata", "tenant lumen-bay-hotels", "succeeded")]))

page("S3", "SMSBIND", "2025-05-14 09:12", "sms-gateway", "SmppSubmitRespTimeouts", "sms-gateway (iad1) link=arcwave-1",
     "major", "submit_sm without response above 100/min on link arcwave-1 (current 640/min)", "iad1", "messaging",
     "messaging", extra_labels={"link": "arcwave-1"}, deployment=dep("sms-gateway-3.9.2", "3.9.2", 22),
     outcome=out("2025-05-14 10:05",
                 "Arcwave shortened its firewall idle timeout to 30 s during maintenance, below our 60 s enquire_link interval; the binds went half-open. Release 3.9.2 was unrelated.",
                 "The gateway release 22 minutes earlier looked guilty; going back to 3.9.1 changed nothing. Re-establishing the arcwave-1 binds cleared the queue; enquire_link lowered to 20 s.",
                 "rafael.souza",
                 [("deploy-rollback-release", "sms-gateway to 3.9.1; no change", "failed"),
                  ("sms-gateway-rebind-smpp", "link arcwave-1", "succeeded")]))

report("A4", "ALG30", "2025-05-20 14:50", "sip-edge", "medium",
       "Marlow & Finch calls drop after 30 sec - every call",
       "Law firm Marlow & Finch: inbound and outbound calls drop at ~30 s since Monday, all from their Leeds office; their London office is fine. Calls go out over different carriers and all of them drop.",
       ["call-drop"],
       lab("support-ticket", "ams1", "voice-core", reporter="hannah.price", customer="marlow-finch"),
       started=60,
       outcome=out("2025-05-20 17:30",
                   "Leeds office router with SIP ALG, installed over the weekend, rewrote Contact headers.",
                   "Following the open contradiction, on-call first moved the Crestline trunk (the route of the first failing call) to TCP: drops continued on every carrier, and the trunk was put back. Forcing NAT handling for the tenant fixed it.",
                   "hannah.price",
                   [("sbc-move-trunk-to-tcp", "trunk crestline-ams; drops continued on all carriers", "failed"),
                    ("sip-edge-force-nat-fixup", "tenant marlow-finch", "succeeded")]))

report("B3", "RATEDECK", "2025-05-26 09:30", "billing-rater", "medium",
       "Unrated CDRs piling up since deck import",
       "Omar (billing ops): suspense queue at 120k since the Telvana weekly deck loaded last night; international mobile destinations are all unrated. CDR files are arriving normally.",
       ["unrated-cdrs"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       deployment=dep("ratedeck-telvana-2025w21", "2025w21", 610), started=60,
       outcome=out("2025-05-28 11:00",
                   "Telvana's deck shipped without its header row; the importer took the first data row as header and lost every international mobile prefix.",
                   "Previous Telvana deck reactivated and suspense re-rated on the 26th; confirmed on the 28th after finance reconciled the re-rated invoices.",
                   "omar.haddad",
                   [("billing-rater-restore-rate-deck", "carrier telvana, 2025w20", "succeeded")]))

page("R4", "REGFAIL", "2025-05-27 22:48", "sip-edge", "KamailioRegisterFailureRatio", "sip-edge (iad1)",
     "critical", REG_ANN.format(r="iad1", v="0.52"), "iad1", "voice-prod", "voice-core",
     outcome=out("2025-05-27 23:40",
                 "A managed Redis maintenance failover at 22:41 promoted the replica in the other zone; the edges' ndb_redis connections stayed open to the old primary, now a replica, and got READONLY.",
                 "First registrar failover since the move to managed Redis. The old Sentinel procedure could not run (no Sentinel hosts exist any more). Reopening the edges' registrar connections made them resolve the primary endpoint again; errors stopped.",
                 "li.mei",
                 [("registrar-sentinel-repoint-edge", "step 1 could not reach any Sentinel host", "failed"),
                  ("sip-edge-reconnect-registrar", "iad1, two pods at a time", "succeeded")]))

report("P3", "PORTING", "2025-05-29 11:15", "number-porting", "high",
       "Port for Northgate Schools completed at carrier but numbers still pending",
       "Carrier released the numbers at 10:00 today per the FOC; our side still says Pending and inbound to the 220 TNs fails with 404 from call-router.",
       ["porting-failure", "sip-404", "inbound-call-failure"],
       lab("slack", "iad1", "numbers", reporter="kenji.sato", customer="northgate-schools"),
       started=75,
       outcome=out("2025-06-02 09:00",
                   "The partner's activation webhook arrived before our order record left 'submitted' and was discarded as an unknown order (a race in number-porting).",
                   "Missed activations applied from the partner API the same day and routes reloaded; the race was fixed in number-porting 2.4 and the outcome confirmed on 06-02.",
                   "kenji.sato",
                   [("number-porting-resync-activations", "1 order, 220 TNs", "succeeded")]))

# ---------------- June ----------------
report("D4", "DBCONN", "2025-06-02 02:50", "sip-edge", "high",
       "REGISTER 500s iad1, portal slow",
       "pgbouncer pool for subscribers saturated again, lots of billing_batch sessions idle in transaction. Same time of month as before.",
       ["sip-5xx", "db-connection-exhaustion"],
       lab("oncall-report", "iad1", "data", reporter="li.mei"), started=20,
       outcome=out("2025-06-02 03:20",
                   "Month-end invoice run (delayed to Monday) left idle-in-transaction sessions.",
                   "Revised procedure (pause invoice run, end sessions, resume at low concurrency) worked first time.",
                   "li.mei",
                   [("subscriber-db-kill-idle-transactions", "rev 2", "succeeded")]))

page("CF1", "CDRFILE", "2025-06-06 07:40", "billing-rater", "BillingRatingBacklog", "billing-rater (iad1)",
     "warning", BACKLOG_ANN.format(n="61,200", age="4h28m"), "iad1", "billing", "billing",
     outcome=out("2025-06-06 12:30",
                 "sbc-2 rebooted mid-write at 03:12 and left cdr_20250606_0310_sbc2.csv truncated; cdr-collector's parser threw on the last record and retried the same file forever, so nothing after it reached billing-rater.",
                 "Same alert as the rate deck backlogs, different cause: no CDR had arrived for hours. Restarting the collector re-read the same file. Reactivating the previous Telvana deck, as in the last backlog, changed nothing. Moving the truncated file aside by hand and advancing the collector cursor drained the backlog; the SBC team re-exported the 03:10 window.",
                 "omar.haddad",
                 [("cdr-collector-restart-workers", "collector stuck on the same file again", "failed"),
                  ("billing-rater-restore-rate-deck", "carrier telvana; backlog unchanged", "failed"),
                  (None, "moved cdr_20250606_0310_sbc2.csv to /hold and advanced the collector cursor by hand; SBC team re-exported the window", "succeeded")]))

report("T2", "TRUNKFRAG", "2025-06-10 15:05", "sbc", "high",
       "Outbound to NorthPeak: calls drop ~32s, many tenants",
       "Since NorthPeak enabled SRTP on their side this morning, outbound calls via NorthPeak drop at 32 s for lots of tenants (Dunmore Clinics, Copperline, Acme...). Inbound fine. Our ACKs to NorthPeak are ~1,500 bytes and show up fragmented in the pcap.",
       ["call-drop", "ack-timeout"],
       lab("slack", "iad1", "voice-core", reporter="jonas.weber"), started=180,
       outcome=out("2025-06-10 15:50",
                   "SRTP crypto attributes pushed NorthPeak-bound ACKs over the MTU; fragments dropped on the NorthPeak side.",
                   "Carrier-wide 32 s drops on one trunk. Moved the NorthPeak trunk to TCP; drops stopped.",
                   "jonas.weber",
                   [("sbc-move-trunk-to-tcp", "trunk northpeak-iad", "succeeded")]))

report("MD3", "MEDIA", "2025-06-13 18:30", "media-relay", "critical",
       "ams1 relay-vm-2 nearly out of RTP ports, new calls there silent",
       "NOC: port exhaustion alert on relay-vm-2 (88 free of 20000). New calls anchored there have no audio, calls on the other two ams1 relays are fine. sip-edge ams1 pods were evicted during the node upgrade this afternoon.",
       ["no-audio", "port-exhaustion"],
       lab("noc", "ams1", "voice-core", reporter="kenji.sato"), started=25,
       outcome=out("2025-06-13 19:05",
                   "sip-edge ams1 pods were evicted during a node upgrade without dialog cleanup; orphan sessions filled relay-vm-2.",
                   "Relay VM out of ports; taken out of the set, rtpengine restarted, put back.",
                   "dana.kim",
                   [("media-relay-drain-vm", "relay-vm-2 (ams1)", "succeeded")]))

page("N2", "X-ROUTER714", "2025-06-17 10:25", "call-router", "CallRouterInboundNoRoute", "call-router (iad1)",
     "major", NOROUTE_ANN.format(v="37"), "iad1", "voice-prod", "numbers",
     deployment=dep("call-router-7.14.0", "7.14.0", 18),
     outcome=out("2025-06-17 11:05",
                 "call-router 7.14.0 changed number normalisation; toll-free numbers arriving from Meridia in national format (8005550199) no longer matched their E.164 routes.",
                 "Inbound no-route alert like the porting ones, but no port order was pending and every failing number was toll-free. Applying missed port activations found nothing. Going back to call-router 7.13.2 fixed it at once.",
                 "kenji.sato",
                 [("number-porting-resync-activations", "no pending activations found", "failed"),
                  ("deploy-rollback-release", "call-router to 7.13.2", "succeeded")]))

report("S4", "SMSBIND", "2025-06-18 08:05", "voicemail", "medium",
       "Voicemail SMS notifications not going out",
       "Several tenants report no 'New voicemail from...' texts since about 07:20. Voicemail logs show sms-gateway accepting the requests (202), so it's downstream. sms-gateway queue ~26k.",
       ["message-delivery-failure", "queue-backlog"],
       lab("slack", "iad1", "messaging", reporter="grace.lin"), started=45,
       outcome=out("2025-06-18 08:40",
                   "Telvana SMSC maintenance overnight left our telvana-1 binds half-open.",
                   "Voicemail was fine; the SMS gateway was not delivering. Re-established the telvana-1 binds.",
                   "rafael.souza",
                   [("sms-gateway-rebind-smpp", "link telvana-1", "succeeded")]))

report("A5", "ALG30", "2025-06-24 13:40", "sip-edge", "medium",
       "Copperline Auto: every call drops at 30-ish seconds",
       "Only Copperline's Dayton dealership. Started after their ISP swapped the router on Saturday. Other sites and tenants fine.",
       ["call-drop"],
       lab("support-ticket", "iad1", "voice-core", reporter="beth.ramsey", customer="copperline-auto"),
       started=240,
       outcome=out("2025-06-24 14:20",
                   "ISP-supplied router with SIP ALG at the Dayton site.",
                   "NAT handling forced for the tenant; drops stopped.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant copperline-auto", "succeeded")]))

page("O3", "SSO", "2025-06-26 08:55", "sso-idp", "SsoSamlSignatureFailures", "sso-idp (iad1) tenant=dunmore-clinics",
     "warning", "SAML signature validation failures above 10 in 10m for tenant dunmore-clinics (current 57)", "iad1",
     "identity", "identity", extra_labels={"tenant": "dunmore-clinics"},
     outcome=out("2025-06-26 09:30",
                 "Dunmore Clinics rotated its IdP signing certificate.",
                 "Re-imported the tenant's IdP metadata.",
                 "sofia.marin",
                 [("sso-refresh-idp-metadata", "tenant dunmore-clinics", "succeeded")]))

report("P4", "PORTING", "2025-06-30 16:20", "call-router", "high",
       "Sable Pharmacy: ported numbers go to old carrier's announcement",
       "Port completed today at noon per Sable; callers hear the old carrier's 'not in service' message. 12 TNs.",
       ["inbound-call-failure"],
       lab("support-ticket", "iad1", "numbers", reporter="hannah.price", customer="sable-pharmacy"),
       started=240,
       outcome=out("2025-06-30 17:05",
                   "Activation webhook rejected by number-porting during its 2.4.1 deploy window; partner did not retry.",
                   "Applied the missed activation and reloaded routes.",
                   "kenji.sato",
                   [("number-porting-resync-activations", "1 order, 12 TNs", "succeeded")]))

# ---------------- July ----------------
report("D5", "DBCONN", "2025-07-01 03:05", "admin-portal", "high",
       "portal login spinning, some phones unregistered",
       "Portal login hangs; NOC sees REGISTER 500s on iad1 edges. Postgres connections maxed.",
       ["latency-spike", "registration-failure"],
       lab("noc", "iad1", "data", reporter="kenji.sato"), started=30,
       outcome=out("2025-07-03 10:00",
                   "Month-end invoice run; idle-in-transaction sessions from billing_batch.",
                   "Fixed the same night with the revised procedure; confirmed on 07-03 after billing agreed to add idle_in_transaction_session_timeout to the batch role (not yet done).",
                   "tomasz.nowak",
                   [("subscriber-db-kill-idle-transactions", "rev 2", "succeeded")]))

report("T3", "TRUNKFRAG", "2025-07-02 17:25", "sip-edge", "high",
       "32-second drops on calls out through Arcwave",
       "Several tenants (Vantage Insurance, Lumen Bay Hotels, Orbis Legal). Only Arcwave routes; calls via Telvana and NorthPeak are fine. Arcwave switched us to delayed offer yesterday per their change notice. The ACKs we send them are 1,450+ bytes.",
       ["call-drop", "ack-timeout"],
       lab("oncall-report", "iad1", "voice-core", reporter="li.mei"), started=100,
       outcome=out("2025-07-02 18:00",
                   "Delayed offer on the Arcwave trunk; ACKs with SDP fragmented over UDP and dropped.",
                   "Moved the Arcwave trunk to TCP.",
                   "li.mei",
                   [("sbc-move-trunk-to-tcp", "trunk arcwave-iad", "succeeded")]))

report("R5", "REGFAIL", "2025-07-08 07:55", "sip-edge", "high",
       "Inbound calls going straight to voicemail for a bunch of tenants",
       "Support: since ~07:30 inbound calls for many tenants never ring and land in voicemail. call-router finds no contact for the users. sip-edge log keeps printing READONLY from ndb_redis.",
       ["inbound-call-failure", "registration-failure"],
       lab("support-ticket", "iad1", "voice-core", reporter="grace.lin"),
       errors=["ERROR: ndb_redis [redis_client.c:1112]: READONLY You can't write against a read only replica."],
       started=25,
       outcome=out("2025-07-08 08:30",
                   "Managed Redis failover during cloud maintenance; edge connections pinned to the old primary.",
                   "Reopened the edges' registrar connections; registrations recovered as phones re-registered.",
                   "jonas.weber",
                   [("sip-edge-reconnect-registrar", "iad1", "succeeded")]))

report("B4", "RATEDECK", "2025-07-14 09:00", "billing-rater", "medium",
       "rating backlog after Crestline deck",
       "Suspense queue 73k and rising; all unrated CDRs are Crestline routes to UK and IE mobiles. Crestline deck 2025w28 imported 02:00; collector is current (latest file 08:55).",
       ["unrated-cdrs", "billing-backlog"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       deployment=dep("ratedeck-crestline-2025w28", "2025w28", 420), started=60,
       outcome=out("2025-07-18 12:00",
                   "Crestline's deck listed UK and IE mobile prefixes without country code.",
                   "Previous Crestline deck reactivated and suspense re-rated on the 14th; confirmed on the 18th once Crestline sent a corrected deck.",
                   "omar.haddad",
                   [("billing-rater-restore-rate-deck", "carrier crestline, 2025w27", "succeeded")]))

report("N3", "X-10DLC", "2025-07-22 11:30", "sms-gateway", "medium",
       "Brightwater Vet texts failing since this morning",
       "Brightwater Vet's appointment reminders all fail; other tenants' SMS are fine and the queue is normal. Delivery receipts come back with err:0x45 'campaign not active'.",
       ["message-delivery-failure"],
       lab("support-ticket", "iad1", "messaging", reporter="hannah.price", customer="brightwater-vet"),
       errors=["DLR stat:UNDELIV err:045 text:campaign not active"], started=150,
       outcome=out("2025-07-24 15:00",
                   "The 10DLC campaign registry suspended Brightwater's campaign after a content audit (reminders with a URL shortener, sent from a number not on the campaign); carriers rejected its texts.",
                   "Not a gateway problem: only one tenant, queue normal, carriers rejecting by campaign. Re-establishing the binds did nothing. Support had the customer drop shortened links, the campaign was resubmitted with sample messages and re-approved on 07-24.",
                   "rafael.souza",
                   [("sms-gateway-rebind-smpp", "link telvana-1; receipts still rejected", "failed"),
                    (None, "resubmitted the tenant's 10DLC campaign with corrected samples and number list", "succeeded")]))

report("CF2", "CDRFILE", "2025-07-29 06:50", "cdr-collector", "medium",
       "CDR collector stuck on one file since 04:00",
       "cdr-collector has logged a parse error for the same file ~2,000 times; rating backlog on billing-rater growing; sbc1 had a disk-full alarm at 03:58.",
       ["cdr-lag", "parse-error"],
       lab("oncall-report", "iad1", "billing", reporter="tomasz.nowak"),
       errors=["parse error: unexpected EOF in record 48113 (cdr_20250729_0400_sbc1.csv)"], started=170,
       outcome=out("2025-08-02 10:00",
                   "sbc-1's CDR partition filled and the 04:00 file was cut mid-record.",
                   "File set aside and cursor advanced the same morning; the re-exported file arrived 08-01 and the outcome was closed on 08-02.",
                   "tomasz.nowak",
                   [("cdr-collector-skip-corrupt-file", "cdr_20250729_0400_sbc1.csv", "succeeded")]))

# ---------------- August ----------------
page("MD4", "MEDIA", "2025-08-01 14:40", "media-relay", "RtpenginePortsExhausted", "media-relay (rtpengine-7f9kq.iad1)",
     "critical", PORTS_ANN.format(i="rtpengine-7f9kq", f="140"), "iad1", "media", "voice-core",
     extra_labels={"pod": "rtpengine-7f9kq"},
     outcome=out("2025-08-01 15:25",
                 "A sip-edge rollout killed pods without dialog cleanup; orphan sessions filled the relay pod rtpengine-7f9kq.",
                 "First relay port exhaustion since the relays moved to Kubernetes. The VM procedure failed (relay VMs were decommissioned on 07-15, its ssh step had no host). Taking the pod out of the set and replacing it freed the ports.",
                 "dana.kim",
                 [("media-relay-drain-vm", "no relay VM to reach", "failed"),
                  ("media-relay-recycle-pod", "rtpengine-7f9kq", "succeeded")]))

report("A6", "ALG30", "2025-08-05 10:20", "sip-edge", "medium",
       "Northgate Schools - calls dropping at 30s",
       "District office only. Started after their new firewall went in.",
       ["call-drop"],
       lab("support-ticket", "iad1", "voice-core", reporter="beth.ramsey", customer="northgate-schools"),
       started=180,
       outcome=out("2025-08-05 11:00",
                   "District office firewall with SIP ALG enabled.",
                   "NAT handling forced for the tenant; drops stopped.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant northgate-schools", "succeeded")]))

report("P5", "PORTING", "2025-08-07 12:05", "number-porting", "high",
       "Partial port for Vantage Insurance: half the numbers not routing",
       "Vantage ported 60 of their 140 numbers (partial port); the 60 show Pending here and calls to them fail. Carrier says activation happened at 09:00.",
       ["porting-failure", "inbound-call-failure"],
       lab("slack", "iad1", "numbers", reporter="kenji.sato", customer="vantage-insurance"),
       started=180,
       outcome=out("2025-08-07 14:10",
                   "Activation for a partial port order was never recorded; the apply step only handled whole orders.",
                   "Applying missed activations skipped the partial order. Applied the 60 TN activations by hand and reloaded routes. Revision 2 of the procedure handles partial orders per number.",
                   "kenji.sato",
                   [("number-porting-resync-activations", "whole orders only; partial order left pending", "partial"),
                    (None, "applied the 60 TN activations of the partial order by hand and reloaded call-router routes", "succeeded")],
                   runbook="number-porting-resync-activations"))

report("S5", "SMSBIND", "2025-08-12 16:40", "sms-gateway", "high",
       "SMS backlog after today's gateway deploy?",
       "Queue at 31k since ~16:10, 3.11.0 went out at 15:55. Binds show bound on all four links but zero submit_sm_resp; enquire_link responses missing too.",
       ["queue-backlog", "message-delivery-failure"],
       lab("slack", "iad1", "messaging", reporter="grace.lin"),
       deployment=dep("sms-gateway-3.11.0", "3.11.0", 45), started=30,
       outcome=out("2025-08-12 17:15",
                   "Telvana SMSC maintenance; half-open binds. The release was unrelated.",
                   "Re-established the binds on both Telvana links; queue drained in ten minutes.",
                   "rafael.souza",
                   [("sms-gateway-rebind-smpp", "links telvana-1 and telvana-2", "succeeded")]))

report("B5", "RATEDECK", "2025-08-18 10:10", "billing-rater", "medium",
       "Prepaid balances not moving since the weekend",
       "Customer success: several prepaid tenants' balances haven't gone down since Sunday. Suspense has 95k CDRs, all on Meridia routes. New Meridia rate deck was imported Sunday 23:00.",
       ["unrated-cdrs"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       deployment=dep("ratedeck-meridia-2025w33", "2025w33", 670), started=60,
       outcome=out("2025-08-18 13:00",
                   "Meridia's deck had a byte-order mark that made the importer skip the prefix column.",
                   "Previous Meridia deck reactivated, suspense re-rated.",
                   "omar.haddad",
                   [("billing-rater-restore-rate-deck", "carrier meridia, 2025w32", "succeeded")]))

report("T4", "TRUNKFRAG", "2025-08-19 13:30", "sbc", "high",
       "Drops at 32 s on Crestline calls",
       "Multiple tenants, only Crestline routes. Capture shows our ACK at 1,480 bytes going out in two fragments.",
       ["call-drop"],
       lab("oncall-report", "ams1", "voice-core", reporter="hannah.price"), started=120,
       outcome=out("2025-08-27 09:00",
                   "Crestline enabled SRTP on the ams1 trunk; ACKs fragmented over UDP.",
                   "Moved trunk crestline-ams to TCP on 08-19; closed on 08-27 after Crestline confirmed on their side.",
                   "hannah.price",
                   [("sbc-move-trunk-to-tcp", "trunk crestline-ams", "succeeded")]))

page("R6", "REGFAIL", "2025-08-26 21:14", "registrar-cache", "RegistrarCachePrimaryFailover", "registrar-cache (iad1)",
     "warning", "replication group registrar-prod changed primary (event FailoverComplete)", "iad1", "voice-prod",
     "voice-core", symptoms=["failover"],
     outcome=out("2025-08-26 22:20",
                 "Managed Redis failover after a node replacement; edges kept their connections to the old primary.",
                 "REGISTER failures followed the failover event by twenty minutes. Reopened the edges' registrar connections.",
                 "li.mei",
                 [("sip-edge-reconnect-registrar", "iad1", "succeeded")]))

page("R7", "REGFAIL", "2025-08-26 21:36", "sip-edge", "KamailioRegisterFailureRatio", "sip-edge (iad1)",
     "critical", REG_ANN.format(r="iad1", v="0.44"), "iad1", "voice-prod", "voice-core",
     outcome=out("2025-08-26 22:25",
                 "Same managed Redis failover as {R6}.",
                 "Re-page of {R6}: the register failure alert fired 22 minutes after the failover alert. Cleared by the same run.",
                 "li.mei",
                 [("sip-edge-reconnect-registrar", "the run under {R6} cleared this alert too", "succeeded")]))

report("O4", "SSO", "2025-08-28 14:00", "admin-portal", "medium",
       "Vantage Insurance: SSO login error after their Okta change",
       "Vantage admins get a SAML error page since their IT changed something in Okta this morning. Password login for break-glass admin works.",
       ["login-failure", "saml-error"],
       lab("support-ticket", "iad1", "identity", reporter="beth.ramsey", customer="vantage-insurance"),
       started=240,
       outcome=out("2025-09-03 10:00",
                   "Vantage rotated its Okta signing certificate.",
                   "First attempt by restarting the sso-idp pods changed nothing. Re-imported the tenant's metadata the same day; closed after the customer confirmed on 09-03.",
                   "sofia.marin",
                   [(None, "restarted sso-idp pods", "failed"),
                    ("sso-refresh-idp-metadata", "tenant vantage-insurance", "succeeded")]))

# ---------------- September ----------------
page("D6", "DBCONN", "2025-09-01 02:25", "subscriber-db", "PostgresIdleInTransaction", "subscriber-db (iad1) role=billing_batch",
     "major", "sessions idle in transaction over 5m above 20 for role billing_batch (current 164)", "iad1", "data",
     "data", extra_labels={"role": "billing_batch"},
     outcome=out("2025-09-01 02:50",
                 "Month-end invoice run.",
                 "Paused the invoice run, ended the idle sessions, resumed at low concurrency.",
                 "tomasz.nowak",
                 [("subscriber-db-kill-idle-transactions", "rev 2", "succeeded")]))

page("CF3", "CDRFILE", "2025-09-04 05:30", "billing-rater", "BillingRatingBacklog", "billing-rater (iad1)",
     "warning", BACKLOG_ANN.format(n="57,930", age="2h41m"), "iad1", "billing", "billing",
     outcome=out("2025-09-04 06:15",
                 "A power event on sbc-1 at 02:47 truncated the 02:45 CDR file.",
                 "Collector stuck on one file; set it aside, advanced the cursor, asked for a re-export.",
                 "omar.haddad",
                 [("cdr-collector-skip-corrupt-file", "cdr_20250904_0245_sbc1.csv", "succeeded")]))

report("P6", "PORTING", "2025-09-09 10:30", "number-porting", "medium",
       "Portal says port 'Completed at carrier' but numbers aren't live",
       "Halverson Dental's 8 numbers: the carrier marked the port complete yesterday evening, our portal shows it, but inbound calls still fail.",
       ["porting-failure", "inbound-call-failure"],
       lab("support-ticket", "iad1", "numbers", reporter="grace.lin", customer="halverson-dental"),
       started=600,
       outcome=out("2025-09-09 11:10",
                   "Partner webhook delivered the status but not the activation event; activation never applied.",
                   "Applied the missed activation from the partner API and reloaded routes.",
                   "kenji.sato",
                   [("number-porting-resync-activations", "1 order, 8 TNs", "succeeded")]))

report("MD5", "MEDIA", "2025-09-10 12:45", "sip-edge", "high",
       "No audio on some new calls in ams1",
       "Since about noon some new calls in ams1 connect with dead air both ways. sip-edge logs an rtpengine error on offer for one relay.",
       ["no-audio"],
       lab("noc", "ams1", "voice-core", reporter="kenji.sato"),
       errors=["rtpengine: error in ng reply from rtpengine-m2x8d: Ran out of ports"], started=45,
       outcome=out("2025-09-12 09:00",
                   "sip-edge ams1 crash on a malformed SDP left orphan sessions on rtpengine-m2x8d.",
                   "Pod taken out of the set and replaced on 09-10; the edge crash was fixed in 5.8.3 and the outcome closed on 09-12.",
                   "dana.kim",
                   [("media-relay-recycle-pod", "rtpengine-m2x8d", "succeeded")]))

report("S6", "SMSBIND", "2025-09-16 19:10", "sms-gateway", "medium",
       "outbound SMS stuck",
       "queue 12k, binds look up, no responses from Arcwave.",
       ["queue-backlog"],
       lab("oncall-report", "iad1", "messaging", reporter="rafael.souza"), started=25,
       outcome=out("2025-09-16 19:30",
                   "Half-open Arcwave binds after Arcwave maintenance.",
                   "Re-established the arcwave-1 binds.",
                   "rafael.souza",
                   [("sms-gateway-rebind-smpp", "link arcwave-1", "succeeded")]))

report("N1", "X-SESSIONTIMER", "2025-09-18 15:45", "sbc", "high",
       "Calls via NorthPeak dropping at exactly 15 minutes",
       "Dunmore Clinics and Acme: long calls out through NorthPeak drop at 15:00 sharp. Short calls fine. Started after Tuesday's SBC profile cleanup. sbc log shows a re-INVITE from NorthPeak answered 488 right before the BYE.",
       ["call-drop"],
       lab("slack", "iad1", "voice-core", reporter="jonas.weber"),
       errors=["re-INVITE from northpeak-iad rejected: 488 Not Acceptable Here"], started=120,
       outcome=out("2025-09-18 18:30",
                   "The SBC profile cleanup removed 'timer' from Supported and trimmed the codec list used to answer in-dialog offers; NorthPeak's session-timer re-INVITE at 900 s got 488 and NorthPeak ended the call.",
                   "A call-drop complaint unlike the 32-second ones: exact 15-minute drops on one carrier. Forcing NAT handling for Dunmore did nothing. Putting session-timer support and the full codec list back into the NorthPeak SBC profile by hand fixed it.",
                   "jonas.weber",
                   [("sip-edge-force-nat-fixup", "tenant dunmore-clinics; drops at 15:00 continued", "failed"),
                    (None, "added 'timer' back to Supported and restored the in-dialog codec list in the NorthPeak SBC profile by hand", "succeeded")]))

report("A7", "ALG30", "2025-09-23 09:50", "sip-edge", "low",
       "Sable Pharmacy store #12 calls drop after ~30s",
       "Just store #12, since their network vendor visit yesterday. Other stores fine. Edge shows Contact 10.20.12.5.",
       ["call-drop", "ack-timeout"],
       lab("support-ticket", "iad1", "voice-core", reporter="hannah.price", customer="sable-pharmacy"),
       started=120,
       outcome=out("2025-09-23 10:30",
                   "Store #12 router replaced with SIP ALG on.",
                   "NAT handling forced for the tenant.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant sable-pharmacy", "succeeded")]))

page("B6", "RATEDECK", "2025-09-29 08:20", "billing-rater", "BillingRatingBacklog", "billing-rater (iad1)",
     "warning", BACKLOG_ANN.format(n="66,015", age="9s"), "iad1", "billing", "billing",
     outcome=out("2025-09-29 10:45",
                 "NorthPeak's weekly deck repeated prefixes with conflicting rates; the importer rejected those rows and their CDRs went to suspense.",
                 "Files were arriving; waiting CDRs were in suspense on NorthPeak routes. Reactivated the previous NorthPeak deck and re-rated.",
                 "omar.haddad",
                 [("billing-rater-restore-rate-deck", "carrier northpeak, 2025w38", "succeeded")]))

# ---------------- October ----------------
report("D7", "DBCONN", "2025-10-01 02:30", "sip-edge", "high",
       "month-end again? register 500s on iad1",
       "pgbouncer full, billing_batch idle in txn.",
       ["sip-5xx"],
       lab("oncall-report", "iad1", "data", reporter="li.mei"), started=15,
       outcome=out("2025-10-01 02:55",
                   "Month-end invoice run.",
                   "Revised procedure again. Billing still has not set an idle timeout for the batch role.",
                   "li.mei",
                   [("subscriber-db-kill-idle-transactions", "rev 2", "succeeded")]))

page("T5", "TRUNKFRAG", "2025-10-07 16:00", "sbc", "SbcTrunkTimerHExpiry", "sbc (ams1) trunk=telvana-ams",
     "major", "ACK timeouts on trunk telvana-ams above 5/min (current 23/min)", "ams1", "voice-prod", "voice-core",
     extra_labels={"trunk": "telvana-ams"},
     outcome=out("2025-10-07 16:40",
                 "Telvana moved its ams1 interconnect to delayed offer; ACKs with SDP fragmented over UDP.",
                 "Moved trunk telvana-ams to TCP.",
                 "hannah.price",
                 [("sbc-move-trunk-to-tcp", "trunk telvana-ams", "succeeded")]))

report("O5", "SSO", "2025-10-09 10:40", "admin-portal", "medium",
       "Halverson Dental SSO: 'signature invalid'",
       "Office manager can't get into the portal through Google Workspace SSO since yesterday.",
       ["login-failure"],
       lab("support-ticket", "iad1", "identity", reporter="grace.lin", customer="halverson-dental"),
       started=900,
       outcome=out("2025-10-09 11:15",
                   "Halverson's Google Workspace SAML app certificate was renewed.",
                   "Re-imported the tenant's IdP metadata.",
                   "sofia.marin",
                   [("sso-refresh-idp-metadata", "tenant halverson-dental", "succeeded")]))

page("P7", "PORTING", "2025-10-15 09:20", "call-router", "CallRouterInboundNoRoute", "call-router (iad1)",
     "major", NOROUTE_ANN.format(v="6"), "iad1", "voice-prod", "numbers",
     outcome=out("2025-10-15 10:00",
                 "Two port orders activated upstream overnight were not recorded (webhook signature check failed after the partner rotated its key).",
                 "Applied the missed activations and reloaded routes.",
                 "kenji.sato",
                 [("number-porting-resync-activations", "2 orders, 27 TNs", "succeeded")]))

report("CF4", "CDRFILE", "2025-10-21 07:10", "billing-rater", "medium",
       "rating backlog growing, newest CDR 3h old",
       "Billing dashboard: nothing new rated since ~04:00. cdr-collector keeps logging a parse error on cdr_20251021_0400_sbc2.csv.",
       ["billing-backlog", "parse-error"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       errors=["parse error: unterminated quoted field in record 20577 (cdr_20251021_0400_sbc2.csv)"], started=190,
       outcome=out("2025-10-21 07:45",
                   "sbc-2 kernel panic at 04:02 truncated the 04:00 file.",
                   "File set aside, cursor advanced, re-export requested.",
                   "omar.haddad",
                   [("cdr-collector-skip-corrupt-file", "cdr_20251021_0400_sbc2.csv", "succeeded")]))

page("MD6", "MEDIA", "2025-10-23 20:05", "media-relay", "RtpenginePortsExhausted", "media-relay (rtpengine-q4c2h.ams1)",
     "critical", PORTS_ANN.format(i="rtpengine-q4c2h", f="201"), "ams1", "media", "voice-core",
     extra_labels={"pod": "rtpengine-q4c2h"},
     outcome=out("2025-10-23 20:40",
                 "Orphan sessions after a sip-edge ams1 node failure.",
                 "Pod taken out of the set and replaced.",
                 "dana.kim",
                 [("media-relay-recycle-pod", "rtpengine-q4c2h", "succeeded")]))

page("S7", "SMSBIND", "2025-10-28 12:30", "sms-gateway", "SmsOutboundQueueDepth", "sms-gateway (iad1)",
     "major", SMSQ_ANN.format(n="22,730"), "iad1", "messaging", "messaging",
     outcome=out("2025-10-28 13:00",
                 "Half-open telvana-2 binds after Telvana maintenance.",
                 "Re-established the telvana-2 binds.",
                 "rafael.souza",
                 [("sms-gateway-rebind-smpp", "link telvana-2", "succeeded")]))

# ---------------- November ----------------
report("R8", "REGFAIL", "2025-11-04 06:45", "sip-edge", "high",
       "Phones deregistering across tenants after Redis maintenance",
       "Overnight maintenance on the registrar Redis finished 06:10; since then REGISTER failing ~35% on iad1 and phones dropping to No Service.",
       ["registration-failure", "sip-5xx"],
       lab("oncall-report", "iad1", "voice-core", reporter="jonas.weber"), started=35,
       outcome=out("2025-11-04 07:10",
                   "Managed Redis maintenance failover; edges pinned to the old primary.",
                   "Reopened the edges' registrar connections.",
                   "jonas.weber",
                   [("sip-edge-reconnect-registrar", "iad1", "succeeded")]))

report("B7", "RATEDECK", "2025-11-10 09:40", "billing-rater", "medium",
       "zero-rated calls again after Monday deck",
       "Arcwave deck loaded last night; ~40k Arcwave CDRs in suspense. Collector current.",
       ["unrated-cdrs"],
       lab("slack", "iad1", "billing", reporter="omar.haddad"),
       deployment=dep("ratedeck-arcwave-2025w45", "2025w45", 580), started=60,
       outcome=out("2025-11-10 11:30",
                   "Arcwave deck with a new currency column shifted the rate field.",
                   "Previous Arcwave deck reactivated, suspense re-rated.",
                   "omar.haddad",
                   [("billing-rater-restore-rate-deck", "carrier arcwave, 2025w44", "succeeded")]))

report("A8", "ALG30", "2025-11-12 15:15", "sip-edge", "medium",
       "calls dropping at 30s for Tamarack's new Austin office",
       "Only the Austin office, since Monday.",
       ["call-drop"],
       lab("support-ticket", "iad1", "voice-core", reporter="beth.ramsey", customer="tamarack-realty"),
       started=300,
       outcome=out("2025-11-12 15:50",
                   "Austin office router with SIP ALG.",
                   "NAT handling forced for the tenant.",
                   "amara.okafor",
                   [("sip-edge-force-nat-fixup", "tenant tamarack-realty", "succeeded")]))

report("CF5", "CDRFILE", "2025-11-18 06:20", "billing-rater", "medium",
       "CDR rating stalled since ~04:15",
       "Backlog alert is firing in #billing-alerts. The collector log repeats the same file over and over; sbc-2 went through a firmware reboot overnight.",
       ["billing-backlog", "cdr-lag"],
       lab("slack", "iad1", "billing", reporter="tomasz.nowak"),
       errors=["parse error: unexpected EOF in record 9921 (cdr_20251118_0410_sbc2.csv)"], started=125,
       outcome=out("2025-11-18 07:00",
                   "sbc-2 rebooted for a firmware update mid-write; truncated 04:10 file.",
                   "File set aside, cursor advanced, re-export requested.",
                   "tomasz.nowak",
                   [("cdr-collector-skip-corrupt-file", "cdr_20251118_0410_sbc2.csv", "succeeded")]))

report("T6", "TRUNKFRAG", "2025-11-20 14:10", "sip-edge", "high",
       "Meridia outbound calls drop at 32s, several tenants",
       "Orbis, Kestrel and Pinecrest so far. Only calls routed to Meridia; Meridia asked for delayed offer last week. Big ACKs (1.5 kB) in the trace.",
       ["call-drop", "ack-timeout"],
       lab("slack", "iad1", "voice-core", reporter="amara.okafor"), started=90,
       outcome=out("2025-11-20 14:55",
                   "Delayed offer on the Meridia trunk; fragmented ACKs dropped.",
                   "Moved the Meridia trunk to TCP.",
                   "amara.okafor",
                   [("sbc-move-trunk-to-tcp", "trunk meridia-iad", "succeeded")]))

page("O6", "SSO", "2025-11-21 09:00", "sso-idp", "SsoSamlSignatureFailures", "sso-idp (iad1) tenant=kestrel-freight",
     "warning", "SAML signature validation failures above 10 in 10m for tenant kestrel-freight (current 23)", "iad1",
     "identity", "identity", extra_labels={"tenant": "kestrel-freight"},
     outcome=None)  # still open: Kestrel's metadata URL is behind their VPN; waiting for them

report("P8", "PORTING", "2025-11-25 14:45", "call-router", "high",
       "Dunmore Clinics new numbers: callers get 'not in service'",
       "Dunmore ported 30 numbers this morning (FOC today 10:00). Outbound from them works, inbound fails. Port order still Pending in the portal.",
       ["inbound-call-failure", "porting-failure"],
       lab("support-ticket", "iad1", "numbers", reporter="hannah.price", customer="dunmore-clinics"),
       started=240, outcome=None)  # no outcome recorded before the history ends

report("MD7", "MEDIA", "2025-11-27 19:30", "sbc", "high",
       "dead air on ~1 in 6 new calls (iad1)",
       "NOC: new calls through sbc iad1 intermittently connect with no audio; all of them anchored on rtpengine-h7v5n, which logs 'Ran out of ports'.",
       ["no-audio", "port-exhaustion"],
       lab("noc", "iad1", "voice-core", reporter="kenji.sato"), started=35,
       outcome=out("2025-11-27 20:10",
                   "Orphan sessions after a sip-edge iad1 OOM kill.",
                   "Pod taken out of the set and replaced.",
                   "dana.kim",
                   [("media-relay-recycle-pod", "rtpengine-h7v5n", "succeeded")]))


# --------------------------------------------------------------------------
# Catalog timeline: (at, manifest)
# --------------------------------------------------------------------------
def topology_cm():
    lines = [f"{svc}: {{dependsOn: [{', '.join(deps)}]}}" for svc, deps in TOPOLOGY.items()]
    return OrderedDict([
        ("apiVersion", "v1"), ("kind", "ConfigMap"),
        ("metadata", OrderedDict([("name", "service-topology"),
                                  ("labels", OrderedDict([("recall.dev/topology", "true")]))])),
        ("data", OrderedDict([("topology", "\n".join(lines) + "\n")]))])


def migration_obj(m):
    return OrderedDict([
        ("apiVersion", API), ("kind", "ArchitectureMigration"),
        ("metadata", OrderedDict([("name", m["name"])])),
        ("spec", OrderedDict([("targetService", m["target"]), ("migrationDate", m["date"]),
                              ("oldArch", m["old"]), ("newArch", m["new"]),
                              ("impactedRunbooks", m["impacted"]),
                              ("impactedFixKeywords", m["keywords"]),
                              ("confidenceDeduction", m["deduction"])]))])


CATALOG = [
    (T("2025-02-01 00:00"), topology_cm()),
    (T("2025-02-01 00:01"), RB["registrar-sentinel-repoint-edge"]),
    (T("2025-02-01 00:02"), RB["sms-gateway-rebind-smpp"]),
    (T("2025-02-01 00:03"), RB["media-relay-drain-vm"]),
    (T("2025-02-01 00:04"), RB["deploy-rollback-release"]),
    (T("2025-02-01 00:05"), RB["cdr-collector-restart-workers"]),
    (T("2025-02-20 10:00"), RB["sip-edge-force-nat-fixup"]),            # after A1
    (T("2025-03-05 10:00"), RB["subscriber-db-kill-idle-transactions"]),  # after D1 (rev 1)
    (T("2025-03-14 10:00"), RB["number-porting-resync-activations"]),     # after P1 (rev 1)
    (T("2025-03-28 10:00"), RB["billing-rater-restore-rate-deck"]),       # after B1
    (T("2025-04-10 10:00"), RB["sso-refresh-idp-metadata"]),              # after O1
    (T("2025-04-25 10:00"), RB["sbc-move-trunk-to-tcp"]),                 # after T1
    (T("2025-05-06 09:00"), RB["sip-edge-reconnect-registrar"]),          # ahead of the registrar move
    (T("2025-05-08 10:00"), RB_KILL_V2),                                  # revision 2 after D3
    (T("2025-06-12 10:00"), RB["cdr-collector-skip-corrupt-file"]),       # after CF1
    (T("2025-07-10 10:00"), RB["media-relay-recycle-pod"]),               # ahead of the relay move
    (T("2025-08-20 10:00"), RB_RESYNC_V2),                                # revision 2 after P5
]
for m in MIGRATIONS:
    CATALOG.append((m["at"], migration_obj(m)))


# --------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------
BANNED = ["runbook", "rollback", "roll back", "revert", "rebind", "resync", "reconnect", "repoint",
          "recycle", "drain", "restore", "restart", "force", "fixup", "kill", "terminate", "refresh",
          "skip", "tcp"]


def build():
    incs = sorted(INC, key=lambda i: i["at"])
    assert len({i["key"] for i in incs}) == len(incs)
    name = {i["key"]: f"vc-{n:04d}" for n, i in enumerate(incs, 1)}
    by_key = {i["key"]: i for i in incs}

    def sub(s):
        return re.sub(r"\{([A-Z]+[0-9]+)\}", lambda m: name[m.group(1)], s)

    def subv(s):  # contradiction notes use vc-KEY
        return re.sub(r"vc-([A-Z]+[0-9]+)\b", lambda m: name[m.group(1)], s)

    applies = []  # (at, manifest)
    applies.extend(CATALOG)
    for c in CONTRADICTIONS:
        for v in c["versions"]:
            for k in v["memories"]:
                o = by_key[k]["outcome"]
                assert o and o["at"] < v["at"], (c["name"], k)
            res = OrderedDict([("state", v["state"])])
            if v["state"] == "reconciled":
                res["note"] = subv(v["note"])
            obj = OrderedDict([
                ("apiVersion", API), ("kind", "Contradiction"),
                ("metadata", OrderedDict([("name", c["name"])])),
                ("spec", OrderedDict([
                    ("topic", c["topic"]),
                    ("memories", [name[k] for k in v["memories"]]),
                    ("claims", [OrderedDict([("memory", name[k]), ("claim", cl)]) for k, cl in v["claims"]]),
                    ("resolution", res)]))])
            applies.append((v["at"], obj))

    # World state helpers
    def applied_runbooks(t):
        return {m["metadata"]["name"] for at, m in applies if m["kind"] == "Runbook" and at < t}

    def stale(t):
        s = set()
        for m in MIGRATIONS:
            if m["at"] < t:
                s.update(m["impacted"])
        return s

    def arch(t):
        a = dict(ARCH0)
        for m in MIGRATIONS:
            if m["at"] < t:
                a[m["target"]] = m["arch"]
        return a

    def right_runbook(fam, t):
        ok = applied_runbooks(t)
        st = stale(t)
        ar = arch(t)
        for r in FAMILIES[fam]["fixes"]:
            if r not in ok or r in st:
                continue
            need = RB_ARCH.get(r)
            if need and ar[need[0]] != need[1]:
                continue
            return r
        return None

    events = []
    for at, m in applies:
        events.append((at, 0, OrderedDict([("at", at), ("type", "apply"), ("object", m)])))

    _stats = Counter()
    rows = []
    for inc in incs:
        t = inc["at"]
        fam = inc["fam"]
        earlier = [p for p in incs if p["at"] < t and p["fam"] == fam]
        prec = [p for p in earlier if p["outcome"] and p["outcome"]["at"] < t]
        prec_names = [name[p["key"]] for p in reversed(prec)]
        rb = right_runbook(fam, t)
        failed = set()
        for p in prec:
            for arb, _txt, res in p["outcome"]["actions"]:
                if arb and res == "failed":
                    failed.add(arb)
        unsafe = sorted((stale(t) | failed) - ({rb} if rb else set()))
        truth = OrderedDict([("precedents", prec_names), ("runbook", rb),
                             ("novel", not prec_names), ("unsafeRunbooks", unsafe)])

        spec = OrderedDict()
        spec["service"] = inc["service"]
        assert inc["service"] in TOPOLOGY, inc["service"]
        spec["severity"] = inc["severity"]
        spec["title"] = inc["title"]
        if inc["description"]:
            spec["description"] = inc["description"]
        for s in inc["symptoms"]:
            assert s in SYMPTOMS, (inc["key"], s)
        spec["symptoms"] = inc["symptoms"]
        if inc["errors"]:
            spec["errorSignatures"] = inc["errors"]
        if inc["deployment"]:
            spec["deployment"] = inc["deployment"]
        spec["startedAt"] = minus(t, inc["started"])
        spec["labels"] = inc["labels"]
        text = json.dumps(spec).lower()
        for w in BANNED + list(RB):
            assert not re.search(r"(?<![a-z])" + re.escape(w), text), (inc["key"], w)
        obj = OrderedDict([("apiVersion", API), ("kind", "Incident"),
                           ("metadata", OrderedDict([("name", name[inc["key"]])])), ("spec", spec)])
        events.append((t, 1, OrderedDict([("at", t), ("type", "incident"), ("object", obj), ("truth", truth)])))

        o = inc["outcome"]
        if o:
            assert o["at"] > t
            ok = applied_runbooks(o["at"])
            acts = []
            for arb, txt, res in o["actions"]:
                assert res in ("succeeded", "failed", "partial")
                if arb:
                    assert arb in ok, (inc["key"], arb)
                    acts.append(OrderedDict([("action", sub(f"run runbook {arb} ({txt})")), ("result", res)]))
                else:
                    acts.append(OrderedDict([("action", sub(txt)), ("result", res)]))
            orb = o["runbook"]
            if orb == "auto":
                orb = None
                for arb, _txt, res in o["actions"]:
                    if arb and res == "succeeded":
                        orb = arb
            # the story must agree with the derived answer key
            assert orb == rb, (inc["key"], orb, rb)
            res = OrderedDict([("rootCause", sub(o["root"])), ("summary", sub(o["summary"])),
                               ("runbook", orb), ("actions", acts), ("confirmedBy", o["by"])])
            events.append((o["at"], 2, OrderedDict([("at", o["at"]), ("type", "outcome"),
                                                     ("incident", name[inc["key"]]), ("resolution", res)])))
        rows.append((inc, name[inc["key"]], truth))

    events.sort(key=lambda e: (e[0], e[1]))
    ats = [e[0] for e in events]
    assert len(set(ats)) == len(ats), "two events at the same time"
    return events, rows, name


def stats(rows, name):
    c = Counter()
    lines = []
    fam_members = {}
    for inc, n, tr in rows:
        c["incidents"] += 1
        c[inc["kind"]] += 1
        c["with_outcome" if inc["outcome"] else "without_outcome"] += 1
        if tr["novel"]:
            c["novel"] += 1
            if tr["runbook"] is None:
                c["novel_null"] += 1
        if tr["runbook"] is None:
            c["runbook_null"] += 1
        if tr["unsafeRunbooks"]:
            c["with_unsafe"] += 1
        fam_members.setdefault(inc["fam"], []).append(n)
        if inc["outcome"] and any(r in ("failed", "partial") for _a, _t, r in inc["outcome"]["actions"]):
            c["outcomes_with_failed_or_partial"] += 1
        if inc["outcome"] and any(a and r == "failed" for a, _t, r in inc["outcome"]["actions"]):
            c["outcomes_with_failed_runbook"] += 1
    order = [inc for inc, _n, _t in rows]
    for inc, _n, tr in rows:
        root = FAMILIES[inc["fam"]]["root"]
        svc = inc["service"]
        if svc == root:
            c["root_on_paging_service"] += 1
        elif root in TOPOLOGY[svc]:
            c["root_on_callee_of_paging_service"] += 1
        elif svc in TOPOLOGY[root]:
            c["root_on_caller_of_paging_service"] += 1
        else:
            c["root_not_adjacent"] += 1
        if inc["outcome"] and any(p["at"] > inc["at"] and p["at"] < inc["outcome"]["at"] for p in order):
            c["outcome_after_a_later_incident_started"] += 1
        if inc["deployment"]:
            c["with_deployment"] += 1
        if inc["kind"] == "page" and not inc["symptoms"]:
            c["pages_without_symptoms"] += 1
        mig = [m for m in MIGRATIONS if m["at"] < inc["at"] and m["target"] in (root,)]
        if mig and tr["precedents"]:
            c["post_migration_recurrence_of_migrated_service"] += 1
    lines.append(json.dumps(c, sort_keys=True))
    for f, ms in fam_members.items():
        lines.append(f"{f}: {len(ms)}: {', '.join(ms)}")
    for inc, n, tr in rows:
        lines.append(f"{n} {inc['key']:5s} {inc['fam']:14s} {inc['kind']:6s} {inc['service']:15s} "
                     f"rb={tr['runbook']} prec={','.join(tr['precedents'])} unsafe={','.join(tr['unsafeRunbooks'])}")
    return "\n".join(lines)


def main():
    events, rows, name = build()
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        for _at, _o, ev in events:
            f.write(json.dumps(ev, ensure_ascii=False) + "\n")
    if "--stats" in sys.argv:
        print(stats(rows, name))


if __name__ == "__main__":
    main()
