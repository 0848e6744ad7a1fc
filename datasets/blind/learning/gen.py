#!/usr/bin/env python3
"""Build the Lectern online-learning incident history (history.jsonl).

Everything here is invented. Incidents carry a family key and, for the two
contradiction families, a condition; precedents and most of unsafeRunbooks are
derived from those keys and from the outcome events, so the answer key follows
one rule everywhere (see README.md).
"""
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

OUT = Path(__file__).with_name("history.jsonl")
API = "recall.dev/v1alpha1"


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


def iso(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


events = []  # (datetime, order, event)


def add(at, ev, order=0):
    events.append((at, order, ev))


# ---------------------------------------------------------------- topology
TOPO_V1 = {
    "learner-api": ["sso-service", "course-catalog", "course-search", "quiz-service",
                    "video-delivery", "live-classroom", "postgres-main"],
    "sso-service": ["postgres-main"],
    "lti-bridge": ["sso-service", "course-catalog", "postgres-main", "rabbitmq"],
    "course-catalog": ["postgres-main", "rabbitmq"],
    "course-search": ["search-cluster", "rabbitmq", "course-catalog"],
    "search-cluster": [],
    "video-transcoder": ["rabbitmq", "postgres-main"],
    "video-delivery": ["postgres-main"],
    "quiz-service": ["postgres-main", "rabbitmq"],
    "grading-workers": ["rabbitmq", "postgres-main"],
    "live-classroom": ["sso-service", "postgres-main"],
    "notification-service": ["rabbitmq", "postgres-main"],
    "rabbitmq": [],
    "postgres-main": [],
}
TOPO_V2 = dict(TOPO_V1, **{"video-transcoder": ["postgres-main"]})


def topology(at, topo, note):
    body = "\n".join(f"{svc}: {{dependsOn: [{', '.join(deps)}]}}" for svc, deps in topo.items()) + "\n"
    assert yaml.safe_load(body)  # valid YAML
    add(ts(at), {"type": "apply", "object": {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "service-topology", "labels": {"recall.dev/topology": "true"},
                     "annotations": {"lectern.example/note": note}},
        "data": {"topology": body}}}, order=-2)


# ---------------------------------------------------------------- runbooks
def step(name, image, command, dry, rollback, risk, blast, secs):
    return {"name": name, "image": image, "command": command, "dryRunCommand": dry,
            "rollbackCommand": rollback, "risk": risk, "blastRadius": blast,
            "estimatedSeconds": secs}


PSQL = "postgres:16.4"
KUBECTL = "bitnami/kubectl:1.30.4"
AWSCLI = "amazon/aws-cli:2.17.20"
OPS = "ghcr.io/lectern/ops-tools:2024.09"

RUNBOOKS = {
    "helm-rollback-release": dict(
        title="Roll a Helm release back to its previous revision",
        services=["learner-api", "quiz-service", "course-catalog", "lti-bridge", "sso-service",
                  "course-search", "notification-service"],
        symptoms=["latency-spike", "5xx", "error-rate", "oom-kill"],
        steps=[step("helm-rollback", "alpine/helm:3.15.4",
                    ["helm", "rollback", "$(RELEASE)", "0", "-n", "$(NAMESPACE)", "--wait", "--timeout", "10m"],
                    ["helm", "history", "$(RELEASE)", "-n", "$(NAMESPACE)", "--max", "5"],
                    ["helm", "rollback", "$(RELEASE)", "$(CURRENT_REVISION)", "-n", "$(NAMESPACE)", "--wait"],
                    "medium", "one release's pods, replaced one at a time", 240)]),
    "k8s-rollout-restart": dict(
        title="Rolling restart of one workload",
        services=["sso-service", "learner-api", "course-search", "lti-bridge", "notification-service"],
        symptoms=["login-failure", "session-lost", "crashloop", "error-rate"],
        steps=[step("rollout-restart", KUBECTL,
                    ["kubectl", "rollout", "restart", "$(KIND)/$(WORKLOAD)", "-n", "$(NAMESPACE)"],
                    ["kubectl", "get", "$(KIND)", "$(WORKLOAD)", "-n", "$(NAMESPACE)", "-o", "wide"],
                    [], "medium", "pods of one workload, one at a time", 120),
               step("wait-ready", KUBECTL,
                    ["kubectl", "rollout", "status", "$(KIND)/$(WORKLOAD)", "-n", "$(NAMESPACE)", "--timeout=10m"],
                    ["kubectl", "get", "pods", "-n", "$(NAMESPACE)", "-l", "app=$(WORKLOAD)"],
                    [], "low", "none (read only)", 300)]),
    "video-sync-cdn-key-group": dict(
        title="Point the playback cookie signer at the CDN key group's active public key",
        services=["video-delivery", "learner-api"],
        symptoms=["http-403", "playback-error"],
        steps=[step("write-signer-secret", OPS,
                    ["sh", "-c", "aws cloudfront get-key-group --id $(KEY_GROUP_ID) --query 'KeyGroup.KeyGroupConfig.Items[0]' --output text"
                     " | xargs -I{} kubectl -n media create secret generic cdn-signer --from-literal=key-pair-id={}"
                     " --from-file=private.pem=/keys/active.pem --dry-run=client -o yaml | kubectl apply -f -"],
                    ["aws", "cloudfront", "get-key-group", "--id", "$(KEY_GROUP_ID)"],
                    ["kubectl", "-n", "media", "apply", "-f", "/backup/cdn-signer-previous.yaml"],
                    "medium", "every signed playback cookie issued from now on", 60),
               step("reload-video-delivery", KUBECTL,
                    ["kubectl", "-n", "media", "rollout", "restart", "deployment/video-delivery"],
                    ["kubectl", "-n", "media", "get", "deployment", "video-delivery"],
                    [], "low", "video-delivery pods, rolling", 90)]),
    "transcoder-requeue-stalled-jobs": dict(
        title="Close stale consumer channels on transcode.jobs so their unacked jobs return to the queue",
        services=["video-transcoder", "rabbitmq"],
        symptoms=["stuck-jobs", "queue-backlog"],
        steps=[step("close-stale-channels", OPS,
                    ["python", "/opt/ops/amqp_stale_channels.py", "--vhost", "media", "--queue", "transcode.jobs",
                     "--no-ack-for", "30m", "--close"],
                    ["python", "/opt/ops/amqp_stale_channels.py", "--vhost", "media", "--queue", "transcode.jobs",
                     "--no-ack-for", "30m"],
                    [], "low", "jobs held by consumers that stopped acking", 45),
               step("delete-silent-workers", KUBECTL,
                    ["kubectl", "-n", "media", "delete", "pod", "-l", "app=ffmpeg-worker",
                     "--field-selector", "spec.nodeName=$(NODE)"],
                    ["kubectl", "-n", "media", "get", "pods", "-l", "app=ffmpeg-worker", "-o", "wide"],
                    [], "low", "ffmpeg workers on one node", 60)]),
    "transcoder-scale-ffmpeg-workers": dict(
        title="Raise the ffmpeg worker count for a transcode backlog",
        services=["video-transcoder"],
        symptoms=["queue-backlog", "stuck-jobs"],
        steps=[step("raise-keda-max", KUBECTL,
                    ["kubectl", "-n", "media", "patch", "scaledobject", "ffmpeg-worker", "--type", "merge",
                     "-p", "{\"spec\":{\"maxReplicaCount\":$(MAX_REPLICAS)}}"],
                    ["kubectl", "-n", "media", "get", "scaledobject", "ffmpeg-worker", "-o", "yaml"],
                    ["kubectl", "-n", "media", "patch", "scaledobject", "ffmpeg-worker", "--type", "merge",
                     "-p", "{\"spec\":{\"maxReplicaCount\":24}}"],
                    "low", "media spot node pool size", 30)]),
    "pgbouncer-raise-pool-size": dict(
        title="Raise PgBouncer pool size when Postgres has headroom",
        services=["postgres-main", "learner-api", "quiz-service", "lti-bridge", "course-catalog"],
        symptoms=["pool-exhaustion", "timeout", "5xx", "latency-spike"],
        steps=[step("set-pool-size", KUBECTL,
                    ["kubectl", "-n", "data", "patch", "configmap", "pgbouncer-config", "--type", "merge",
                     "-p", "{\"data\":{\"DEFAULT_POOL_SIZE\":\"$(POOL_SIZE)\",\"MAX_DB_CONNECTIONS\":\"$(MAX_DB_CONNECTIONS)\"}}"],
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-Atc",
                     "select count(*), current_setting('max_connections') from pg_stat_activity"],
                    ["kubectl", "-n", "data", "apply", "-f", "/backup/pgbouncer-config-previous.yaml"],
                    "medium", "every client of postgres-main", 20),
               step("reload-pgbouncer", KUBECTL,
                    ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-p", "6432", "-U",
                     "pgbouncer", "pgbouncer", "-c", "RELOAD"],
                    ["kubectl", "-n", "data", "exec", "deploy/pgbouncer", "--", "psql", "-p", "6432", "-U",
                     "pgbouncer", "pgbouncer", "-c", "SHOW POOLS"],
                    [], "low", "PgBouncer config only, no client disconnects", 10)]),
    "pg-terminate-idle-in-transaction": dict(
        title="End sessions stuck idle in transaction and cap idle transaction time for the role",
        services=["postgres-main", "learner-api", "quiz-service", "lti-bridge", "course-catalog"],
        symptoms=["pool-exhaustion", "timeout", "idle-in-transaction"],
        steps=[step("terminate-idle-xacts", PSQL,
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-c",
                     "select pg_terminate_backend(pid) from pg_stat_activity where usename = '$(ROLE)'"
                     " and state = 'idle in transaction' and now() - state_change > interval '$(MIN_AGE)'"],
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-c",
                     "select pid, application_name, now() - xact_start as open_for from pg_stat_activity"
                     " where usename = '$(ROLE)' and state = 'idle in transaction' order by 3 desc"],
                    [], "high", "open transactions of one application role (they roll back)", 15),
               step("cap-idle-xact-time", PSQL,
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-c",
                     "alter role $(ROLE) set idle_in_transaction_session_timeout = '60s'"],
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-Atc",
                     "select rolconfig from pg_roles where rolname = '$(ROLE)'"],
                    ["psql", "-h", "pg-main-primary", "-d", "lectern", "-c",
                     "alter role $(ROLE) reset idle_in_transaction_session_timeout"],
                    "medium", "new sessions of one role", 5)]),
    "pg-cancel-replica-conflicting-queries": dict(
        title="Cancel long queries that hold WAL replay on a lagging read replica",
        services=["postgres-main", "learner-api", "quiz-service"],
        symptoms=["replica-lag", "stale-data"],
        steps=[step("cancel-blocking-queries", PSQL,
                    ["psql", "-h", "$(REPLICA)", "-d", "lectern", "-c",
                     "select pg_cancel_backend(pid) from pg_stat_activity where backend_type = 'client backend'"
                     " and state = 'active' and now() - query_start > interval '5 minutes'"],
                    ["psql", "-h", "$(REPLICA)", "-d", "lectern", "-c",
                     "select now() - pg_last_xact_replay_timestamp() as lag, pid, usename, now() - query_start"
                     " from pg_stat_activity where state = 'active' order by 4 desc limit 10"],
                    [], "low", "long reporting queries on one replica", 20),
               step("bound-standby-delay", PSQL,
                    ["psql", "-h", "$(REPLICA)", "-d", "lectern", "-c",
                     "alter system set max_standby_streaming_delay = '30s'; select pg_reload_conf()"],
                    ["psql", "-h", "$(REPLICA)", "-d", "lectern", "-Atc", "show max_standby_streaming_delay"],
                    ["psql", "-h", "$(REPLICA)", "-d", "lectern", "-c",
                     "alter system reset max_standby_streaming_delay; select pg_reload_conf()"],
                    "low", "one replica's reporting queries may be cancelled sooner", 10)]),
    "grading-scale-workers": dict(
        title="Raise the autograder worker ceiling for a submission surge",
        services=["grading-workers", "quiz-service"],
        symptoms=["queue-backlog", "grading-delay"],
        steps=[step("raise-keda-max", KUBECTL,
                    ["kubectl", "-n", "grading", "patch", "scaledobject", "grader", "--type", "merge",
                     "-p", "{\"spec\":{\"maxReplicaCount\":$(MAX_REPLICAS)}}"],
                    ["kubectl", "-n", "grading", "get", "scaledobject", "grader", "-o", "yaml"],
                    ["kubectl", "-n", "grading", "patch", "scaledobject", "grader", "--type", "merge",
                     "-p", "{\"spec\":{\"maxReplicaCount\":40}}"],
                    "low", "grading node pool size", 30)]),
    "grading-kill-runaway-sandboxes": dict(
        title="Stop grading sandboxes that run to the wall-clock limit and cap the assignment's time limit",
        services=["grading-workers", "quiz-service"],
        symptoms=["queue-backlog", "grading-delay", "cpu-saturation"],
        steps=[step("stop-long-sandboxes", OPS,
                    ["python", "/opt/ops/sandboxctl.py", "stop", "--older-than", "120s", "--record-as", "timeout"],
                    ["python", "/opt/ops/sandboxctl.py", "list", "--older-than", "120s"],
                    [], "medium", "submissions running longer than 2 minutes (graded as time-outs)", 40),
               step("cap-assignment-limit", OPS,
                    ["python", "/opt/ops/sandboxctl.py", "set-limit", "--assignment", "$(ASSIGNMENT_ID)", "--seconds", "60"],
                    ["python", "/opt/ops/sandboxctl.py", "get-limit", "--assignment", "$(ASSIGNMENT_ID)"],
                    ["python", "/opt/ops/sandboxctl.py", "set-limit", "--assignment", "$(ASSIGNMENT_ID)", "--seconds", "600"],
                    "low", "one assignment's grading time limit", 5)]),
    "es-eck-restart-data-pod": dict(
        title="Recycle one Elasticsearch data pod with shard allocation paused (ECK)",
        services=["search-cluster", "course-search"],
        symptoms=["circuit-breaker", "memory-pressure", "http-429", "5xx"],
        steps=[step("pause-allocation", "curlimages/curl:8.9.1",
                    ["curl", "-sS", "-XPUT", "http://search-es-http.search:9200/_cluster/settings", "-H",
                     "Content-Type: application/json", "-d",
                     "{\"persistent\":{\"cluster.routing.allocation.enable\":\"primaries\"}}"],
                    ["curl", "-sS", "http://search-es-http.search:9200/_cat/nodes?v&h=name,heap.percent,ram.percent"],
                    ["curl", "-sS", "-XPUT", "http://search-es-http.search:9200/_cluster/settings", "-H",
                     "Content-Type: application/json", "-d",
                     "{\"persistent\":{\"cluster.routing.allocation.enable\":null}}"],
                    "low", "shard allocation, cluster-wide, for a few minutes", 10),
               step("delete-data-pod", KUBECTL,
                    ["kubectl", "-n", "search", "delete", "pod", "$(POD)", "--wait=true"],
                    ["kubectl", "-n", "search", "get", "pod", "$(POD)", "-o", "wide"],
                    [], "medium", "one data node's shards until the pod rejoins", 240),
               step("resume-allocation", "curlimages/curl:8.9.1",
                    ["curl", "-sS", "-XPUT", "http://search-es-http.search:9200/_cluster/settings", "-H",
                     "Content-Type: application/json", "-d",
                     "{\"persistent\":{\"cluster.routing.allocation.enable\":null}}"],
                    ["curl", "-sS", "http://search-es-http.search:9200/_cluster/health?pretty"],
                    [], "low", "shard allocation, cluster-wide", 10)]),
    "search-clear-fielddata-cache": dict(
        title="Clear fielddata on the catalog indices and switch off title sorting on text",
        services=["search-cluster", "course-search"],
        symptoms=["circuit-breaker", "memory-pressure", "http-429", "5xx"],
        steps=[step("clear-fielddata", OPS,
                    ["curl", "-sS", "-XPOST", "--aws-sigv4", "aws:amz:$(REGION):es", "--user", "$(AWS_CREDS)",
                     "https://$(DOMAIN_ENDPOINT)/course-*/_cache/clear?fielddata=true"],
                    ["curl", "-sS", "--aws-sigv4", "aws:amz:$(REGION):es", "--user", "$(AWS_CREDS)",
                     "https://$(DOMAIN_ENDPOINT)/_cat/fielddata?v&fields=course.title"],
                    [], "low", "query latency on the catalog indices for a minute", 20),
               step("sort-on-keyword", OPS,
                    ["python", "/opt/ops/flags.py", "set", "course_search.title_sort_field", "course.title.raw"],
                    ["python", "/opt/ops/flags.py", "get", "course_search.title_sort_field"],
                    ["python", "/opt/ops/flags.py", "set", "course_search.title_sort_field", "course.title"],
                    "low", "sort order of title-sorted catalog listings", 5)]),
    "sso-refresh-idp-metadata": dict(
        title="Import a university IdP's current SAML metadata (signing certificates) into Keycloak",
        services=["sso-service", "learner-api", "lti-bridge"],
        symptoms=["login-failure", "signature-mismatch"],
        steps=[step("import-idp-metadata", OPS,
                    ["python", "/opt/ops/kc_idp_metadata.py", "import", "--realm", "learners", "--alias", "$(IDP_ALIAS)",
                     "--from-published-url", "--backup", "/backup/idp-$(IDP_ALIAS).json"],
                    ["python", "/opt/ops/kc_idp_metadata.py", "diff", "--realm", "learners", "--alias", "$(IDP_ALIAS)"],
                    ["python", "/opt/ops/kc_idp_metadata.py", "restore", "--realm", "learners", "--alias",
                     "$(IDP_ALIAS)", "--from", "/backup/idp-$(IDP_ALIAS).json"],
                    "low", "logins through one university's IdP", 30)]),
    "lti-refresh-platform-keyset": dict(
        title="Fetch an LMS platform's current JWKS into lti-bridge's keyset store",
        services=["lti-bridge"],
        symptoms=["launch-failure", "signature-mismatch"],
        steps=[step("fetch-platform-jwks", "ghcr.io/lectern/lti-bridge:admin",
                    ["python", "-m", "lti_bridge.admin", "fetch-jwks", "--platform", "$(PLATFORM_ID)", "--store"],
                    ["python", "-m", "lti_bridge.admin", "fetch-jwks", "--platform", "$(PLATFORM_ID)", "--diff"],
                    [], "low", "launches from one LMS platform", 15)]),
    "rabbitmq-drain-backlogged-queue": dict(
        title="Move a runaway queue's backlog into a lazy overflow queue to clear the broker memory alarm",
        services=["rabbitmq", "notification-service", "quiz-service", "course-catalog"],
        symptoms=["publisher-blocked", "queue-backlog", "memory-alarm"],
        steps=[step("shovel-to-overflow", "rabbitmq:3.13-management",
                    ["rabbitmqctl", "set_parameter", "shovel", "overflow-$(QUEUE)",
                     "{\"src-protocol\":\"amqp091\",\"src-uri\":\"amqp://\",\"src-queue\":\"$(QUEUE)\","
                     "\"dest-protocol\":\"amqp091\",\"dest-uri\":\"amqp://\",\"dest-queue\":\"$(QUEUE).overflow\","
                     "\"dest-queue-args\":{\"x-queue-mode\":\"lazy\"},\"src-delete-after\":\"queue-length\"}"],
                    ["rabbitmqctl", "list_queues", "name", "messages", "memory", "consumers", "--sort", "memory"],
                    ["rabbitmqctl", "clear_parameter", "shovel", "overflow-$(QUEUE)"],
                    "medium", "ordering of one queue's backlog", 120),
               step("consumers-back-up", KUBECTL,
                    ["kubectl", "-n", "$(NAMESPACE)", "scale", "deployment/$(CONSUMER)", "--replicas=$(REPLICAS)"],
                    ["kubectl", "-n", "$(NAMESPACE)", "get", "deployment", "$(CONSUMER)"],
                    [], "low", "one consumer deployment", 60)]),
    "live-sync-turn-secret": dict(
        title="Sync the TURN shared secret from Vault into coturn and reload the relays",
        services=["live-classroom"],
        symptoms=["join-failure", "ice-failure"],
        steps=[step("force-secret-sync", KUBECTL,
                    ["kubectl", "-n", "live", "annotate", "externalsecret", "turn-static-auth",
                     "force-sync=$(TIMESTAMP)", "--overwrite"],
                    ["kubectl", "-n", "live", "get", "externalsecret", "turn-static-auth", "-o", "yaml"],
                    [], "low", "none until relays reload", 15),
               step("reload-coturn", KUBECTL,
                    ["kubectl", "-n", "live", "rollout", "restart", "statefulset/coturn"],
                    ["kubectl", "-n", "live", "get", "pods", "-l", "app=coturn"],
                    [], "medium", "relayed calls reconnect once as each relay restarts", 180)]),
    "live-scale-sfu-pool": dict(
        title="Add SFU pods for large live sessions",
        services=["live-classroom"],
        symptoms=["cpu-saturation", "media-freeze", "packet-loss"],
        steps=[step("scale-sfu", KUBECTL,
                    ["kubectl", "-n", "live", "scale", "statefulset/sfu", "--replicas=$(REPLICAS)"],
                    ["kubectl", "-n", "live", "top", "pods", "-l", "app=sfu"],
                    ["kubectl", "-n", "live", "scale", "statefulset/sfu", "--replicas=$(PREVIOUS_REPLICAS)"],
                    "low", "new rooms land on new pods; running rooms stay put", 150)]),
    "cdn-invalidate-lecture-paths": dict(
        title="Invalidate one lecture's HLS paths on the lectures CDN distribution",
        services=["video-delivery", "learner-api"],
        symptoms=["playback-error", "http-404", "stale-content"],
        steps=[step("create-invalidation", AWSCLI,
                    ["aws", "cloudfront", "create-invalidation", "--distribution-id", "$(DISTRIBUTION_ID)",
                     "--paths", "/lectures/$(LECTURE_ID)/*"],
                    ["aws", "cloudfront", "list-invalidations", "--distribution-id", "$(DISTRIBUTION_ID)",
                     "--max-items", "5"],
                    [], "low", "cache of one lecture's files (origin refetch)", 90)]),
    "mediaconvert-reconcile-job-states": dict(
        title="Record finished MediaConvert jobs that the orchestrator never heard about",
        services=["video-transcoder", "learner-api"],
        symptoms=["stuck-jobs", "stale-data"],
        steps=[step("reconcile-from-mediaconvert", OPS,
                    ["python", "/opt/ops/mc_reconcile.py", "--since", "$(SINCE)", "--statuses", "COMPLETE,ERROR", "--apply"],
                    ["python", "/opt/ops/mc_reconcile.py", "--since", "$(SINCE)", "--statuses", "COMPLETE,ERROR"],
                    [], "low", "lecture video status rows still in PROCESSING", 120),
               step("redrive-job-state-dlq", AWSCLI,
                    ["aws", "sqs", "start-message-move-task", "--source-arn", "$(DLQ_ARN)"],
                    ["aws", "sqs", "get-queue-attributes", "--queue-url", "$(DLQ_URL)", "--attribute-names",
                     "ApproximateNumberOfMessages"],
                    [], "low", "job-state events parked in the DLQ", 60)]),
}

# grading-scale-workers revision 2 (after the grading contradiction is reconciled)
RB_GRADING_V2 = dict(RUNBOOKS["grading-scale-workers"])
RB_GRADING_V2["title"] = "Raise the autograder worker ceiling for a submission surge (refuses when jobs run long)"
RB_GRADING_V2["steps"] = [
    step("precheck-job-duration", OPS,
         ["python", "/opt/ops/grading_precheck.py", "--max-p95-seconds", "60", "--max-at-limit", "0"],
         ["python", "/opt/ops/grading_precheck.py", "--report"],
         [], "low", "none (read only; stops the runbook when sandboxes run to the limit)", 10),
] + RUNBOOKS["grading-scale-workers"]["steps"]


def apply_runbook(at, name, spec=None, rev=1):
    spec = spec or RUNBOOKS[name]
    meta = {"name": name, "labels": {"lectern.example/revision": str(rev)}}
    add(ts(at), {"type": "apply", "object": {"apiVersion": API, "kind": "Runbook",
                                             "metadata": meta, "spec": spec}}, order=-1)


# ---------------------------------------------------------------- incidents
INCIDENTS = []  # dicts, in order
OUTCOMES = {}


def pagelabels(alertname, team, sev="critical", region="us-east-1", **extra):
    d = {"source": "alertmanager", "alertname": alertname, "team": team, "severity": sev,
         "cluster": "prod-use1" if region == "us-east-1" else "prod-euc1", "region": region}
    d.update(extra)
    return d


def inc(n, at, fam, service, severity, title, description, symptoms, errors, labels,
        runbook, deployment=None, started=20, extra_unsafe=(), cond=None):
    INCIDENTS.append(dict(name=f"lx-{n:04d}", at=ts(at), fam=fam, cond=cond, service=service,
                          severity=severity, title=title, description=description, symptoms=symptoms,
                          errors=errors, labels=labels, runbook=runbook, deployment=deployment,
                          started=started, extra_unsafe=list(extra_unsafe)))


def out(n, at, root, summary, actions, by, runbook=None):
    OUTCOMES[f"lx-{n:04d}"] = dict(at=ts(at), root=root, summary=summary, actions=actions,
                                   by=by, runbook=runbook)


S, F, P = "succeeded", "failed", "partial"


def dep(id_, rev, minutes):
    return {"id": id_, "revision": rev, "environment": "production", "minutesSinceDeploy": minutes}


def rep(team, source="slack", region="us-east-1", **extra):
    d = {"team": team, "source": source, "region": region}
    d.update(extra)
    return d


# ---- 2024-09 ---------------------------------------------------------------
inc(1, "2024-09-04T13:42", "TRANSCODE", "video-transcoder", "high",
    "Lecture uploads stuck in Processing since this morning",
    "Instructor support has 30+ tickets about lectures uploaded since ~06:00 UTC that still show 'Processing'. "
    "transcode.jobs shows 0 ready but 412 unacked, and the ffmpeg-worker deployment has all 24 pods Running, "
    "though 9 of them sit at ~0 CPU with nothing new in their scratch dirs. Karpenter logged two spot "
    "interruptions on the media node pool overnight. First week of term, so upload volume is about 3x a normal Wednesday.",
    ["stuck-jobs", "queue-backlog"],
    ["ffmpeg-worker: job 7f3c1e2a heartbeat missed (last progress 05:51:07Z)",
     "rabbitmq: queue 'transcode.jobs' in vhost 'media': messages_ready=0 messages_unacknowledged=412 consumers=24"],
    rep("media", "support-escalation"), "transcoder-requeue-stalled-jobs", started=95)
out(1, "2024-09-04T16:10",
    "ffmpeg workers on reclaimed spot nodes left half-open AMQP connections (client heartbeat disabled); the jobs they had prefetched stayed unacked and no other worker could take them",
    "Two spot interruptions killed media nodes without a clean shutdown. The worker client ran with heartbeat=0, so the broker kept the dead workers' channels and 412 jobs sat unacked. "
    "Raising the ffmpeg-worker ceiling from 24 to 48 changed nothing because the new pods had nothing to consume. Closing the stale channels returned the jobs to ready and the backlog cleared in about 70 minutes. Heartbeats re-enabled in the worker image afterwards.",
    [("raise ffmpeg-worker ceiling 24->48 with runbook transcoder-scale-ffmpeg-workers", F),
     ("run runbook transcoder-requeue-stalled-jobs", S)], "mika.t", "transcoder-requeue-stalled-jobs")

inc(2, "2024-09-09T13:05", "PGCONN", "learner-api", "critical",
    "learner-api 5xx at 09:00 class start, PgBouncer query_wait_timeout",
    "From 08:58 ET about 12% of learner-api requests fail with 500 and the logs are full of query_wait_timeout from PgBouncer. "
    "First Monday of term: sessions per minute are 4x last Monday and every 9am section is opening the same course pages. "
    "PgBouncer shows ~800 clients waiting while Postgres has 180 of 400 connections in use and the primary is at 45% CPU. Nothing deployed since Friday.",
    ["5xx", "pool-exhaustion", "latency-spike"],
    ["django.db.utils.OperationalError: query_wait_timeout",
     "pgbouncer: pool lectern/app cl_waiting=812 sv_active=120 sv_idle=0 maxwait=14s"],
    rep("web"), "pgbouncer-raise-pool-size", started=10, cond="surge")
out(2, "2024-09-09T14:20",
    "term-start traffic surge; PgBouncer default_pool_size of 120 was too small while Postgres had connection and CPU headroom",
    "Class-start traffic on the first Monday of term queued behind a PgBouncer pool of 120 server connections. Postgres was at less than half its max_connections and CPU, so the pool was raised to 200 and reloaded; waits cleared within a minute.",
    [("run runbook pgbouncer-raise-pool-size (default_pool_size 120 -> 200)", S)], "dana.r", "pgbouncer-raise-pool-size")

inc(3, "2024-09-12T15:20", "CDNSTALE", "video-delivery", "medium",
    "Re-uploaded lecture plays ~40s then errors out",
    "Prof. Imani re-uploaded 'ECON 110 - Week 2 Lecture 3' this morning with fixed audio. Students get the first 30-40 seconds, then the player says 'Media could not be loaded'. "
    "DevTools shows the master and 720p playlists returning 200 from the CDN (x-cache Hit, age ~9000s) but every segment request after seg_00007.ts is a 404. "
    "Other lectures play fine and the signed cookies look valid.",
    ["playback-error", "http-404"],
    ["GET /lectures/l-55812/720p/seg_00008.ts 404 (x-cache: Error from cloudfront)",
     "hls.js: fragLoadError fatal=true frag=8 level=2"],
    rep("media", "support-escalation"), None, started=60)
out(3, "2024-09-12T18:05",
    "the re-transcode wrote new segment names and deleted the old ones, but CloudFront kept serving the old playlists (24 h TTL on .m3u8) that pointed at segments that no longer exist",
    "Re-uploading a lecture replaces its HLS output under the same path. The CDN still had the old playlists cached, so players asked for segments that were gone. "
    "The key-group sync was tried first on the idea that signing was broken; it changed nothing. A CloudFront invalidation of /lectures/l-55812/* made from the AWS console fixed playback within minutes. A runbook for per-lecture invalidation was written afterwards.",
    [("run runbook video-sync-cdn-key-group", F),
     ("create a CloudFront invalidation for /lectures/l-55812/* by hand in the console", S)], "sven.o")

inc(4, "2024-09-17T12:30", "SAML", "sso-service", "high",
    "Northfield University students can't log in: 'Invalid signature in response'",
    "Support escalation: since about 07:00 UTC every Northfield student who picks their university on the login page ends on the Keycloak error page. "
    "Other universities and email/password logins work. Keycloak logs signature validation failures for the 'northfield' identity provider only. "
    "Northfield IT confirmed 'scheduled Shibboleth maintenance' over the weekend.",
    ["login-failure", "signature-mismatch"],
    ["WARN [org.keycloak.broker.saml.SAMLEndpoint] Invalid signature in response from identity provider northfield",
     "type=IDENTITY_PROVIDER_LOGIN_ERROR realmId=learners error=invalid_signature identity_provider=northfield"],
    rep("identity", "support-escalation"), None, started=90)
out(4, "2024-09-17T14:40",
    "Northfield rolled its IdP signing certificate; the northfield identity provider in Keycloak still trusted only the old certificate",
    "Northfield's Shibboleth maintenance replaced their SAML signing certificate. Keycloak validated responses against the certificate imported at onboarding, so every response failed. "
    "The IdP's published metadata was imported again by hand in the Keycloak admin console and logins recovered immediately. A runbook was written afterwards.",
    [("import northfield's published SAML metadata by hand in the Keycloak admin console", S)], "priya.k")

inc(5, "2024-09-20T14:03", "SFU", "live-classroom", "high",
    "[FIRING:1] SFUNodeCPUHigh live-classroom",
    "SFU pod CPU above 85% of its limit for 10 minutes",
    ["cpu-saturation"],
    ["max by (pod) (rate(container_cpu_usage_seconds_total{namespace=\"live\",container=\"sfu\"}[2m])) / max by (pod) (kube_pod_container_resource_limits{namespace=\"live\",container=\"sfu\",resource=\"cpu\"}) > 0.85 (value: 0.97)"],
    pagelabels("SFUNodeCPUHigh", "live", "warning", pod="sfu-3"), "live-scale-sfu-pool", started=12)
out(5, "2024-09-20T15:10",
    "three 400-seat lectures started at 10:00 ET and the six SFU pods could not carry the Friday peak",
    "The Friday 10am peak put three very large rooms on a pool of six SFU pods; two pods reached their CPU limit and forwarded video late. The pool was raised to ten pods and the next rooms landed on the new ones.",
    [("run runbook live-scale-sfu-pool (6 -> 10)", S)], "jonas.w", "live-scale-sfu-pool")

inc(6, "2024-09-25T17:48", "REL", "quiz-service", "high",
    "quiz-service p99 jumped to 4s right after 2.31.0",
    "2.31.0 went out at 17:13 UTC with the new 'review attempt' page. Since then p99 on the attempt review endpoint is ~4s against 300ms before, and Postgres shows a flood of identical single-row selects on quiz_answers. "
    "Error rate is still low but big quizzes (100+ questions) are starting to time out.",
    ["latency-spike", "timeout"],
    ["WARNING slow request GET /api/v2/attempts/9f1b2c/review took 4127ms (queries=312)",
     "LOG:  duration: 2.113 ms  statement: SELECT id, answer, score FROM quiz_answers WHERE attempt_id = $1 AND question_id = $2"],
    rep("assessment"), "helm-rollback-release", deployment=dep("quiz-service-2.31.0", "2.31.0", 35), started=25)
out(6, "2024-09-25T18:30",
    "N+1 query in the new attempt review page: one select per answer",
    "The 2.31.0 review page loaded answers one query at a time. The release was taken back to 2.30.2, latency returned to normal, and the page shipped again in 2.31.1 with a single batched query.",
    [("run runbook helm-rollback-release (quiz-service 2.31.0 -> 2.30.2)", S)], "tomas.b", "helm-rollback-release")

inc(7, "2024-09-30T04:20", "GRADING", "grading-workers", "high",
    "Autograder results 25+ min behind, CS101 PS2 due at midnight",
    "CS101 students are posting that their code submissions have shown 'Queued for grading' for half an hour. grading.submissions has ~14k ready messages and is still growing; "
    "submissions peaked at ~600/min against ~100/min normally, all from the PS2 deadline. All 40 grader pods (the KEDA max) are busy at ~90% CPU, and per-job grading time looks normal (p50 9s, p95 22s).",
    ["queue-backlog", "grading-delay"],
    ["rabbitmq: queue 'grading.submissions': messages_ready=14210 consumers=40 ack_rate=71/s",
     "keda: scaledobject grading/grader at maxReplicaCount=40"],
    rep("assessment"), "grading-scale-workers", started=35, cond="surge")
out(7, "2024-09-30T05:35",
    "deadline surge larger than the 40-replica ceiling of the grader ScaledObject",
    "A problem-set deadline brought six times the usual submission rate while each job ran at its normal speed. The grader ceiling was raised to 90; the queue was empty in 40 minutes and the ceiling went back to 40 the next morning.",
    [("run runbook grading-scale-workers (maxReplicaCount 40 -> 90)", S)], "amara.n", "grading-scale-workers")

# ---- 2024-10 ---------------------------------------------------------------
inc(8, "2024-10-03T16:12", "CDNSTALE", "learner-api", "medium",
    "Bio 204 videos: 'media segment not found' after TAs republished them",
    "Ticket from the Bio 204 TAs: they fixed captions on four lectures yesterday, which sends the videos through the pipeline again, and since then the lecture page player fails at random points with 'media segment not found'. "
    "learner-api's player error beacons spiked for those four lecture ids only. The segments the players ask for are no longer in the bucket; newer ones with different names are.",
    ["playback-error", "http-404"],
    ["player_beacon event=fatal code=MEDIA_ERR_NETWORK lecture=l-60231 status=404",
     "GET https://media.lectern.example/lectures/l-60231/1080p/seg_00045.ts -> 404"],
    rep("web", "support-escalation"), "cdn-invalidate-lecture-paths", started=70)
out(8, "2024-10-03T16:50",
    "cached HLS playlists on the CDN still listed the segments of the previous transcode",
    "Caption fixes re-ran the transcode for four Bio 204 lectures. The CDN kept their old playlists, which named deleted segments. Invalidating the four lecture paths fixed playback.",
    [("run runbook cdn-invalidate-lecture-paths for 4 lectures", S)], "sven.o", "cdn-invalidate-lecture-paths")

inc(9, "2024-10-08T13:25", "LTIKEYS", "lti-bridge", "high",
    "LTI launches from Corrow State Canvas fail: 'invalid id_token signature'",
    "Since ~12:40 UTC every launch of our tool from Corrow State's Canvas ends on our 'Launch could not be verified' page; launches from the other 37 platforms are fine. "
    "lti-bridge logs a kid in the id_token header that is not in the keyset we hold for that platform. Corrow's LMS admin says Canvas 'rotated keys this morning as part of the monthly cycle'.",
    ["launch-failure", "signature-mismatch"],
    ["lti_bridge.launch ERROR platform=corrow-state-canvas kid=2024-10-08T00:00:00Z not found in cached JWKS (fetched 2024-10-07T16:02:11Z)",
     "jwt.exceptions.InvalidSignatureError: Signature verification failed"],
    rep("integrations"), None, started=45)
out(9, "2024-10-08T14:15",
    "Canvas rotated its platform signing key; lti-bridge caches each platform's JWKS for 24 h and does not fetch again on an unknown kid",
    "Canvas started signing launches with a new key while our stored keyset for Corrow State was from the day before. The keyset row was deleted and fetched again from a shell in an lti-bridge pod; launches worked at once. A runbook was written afterwards and a ticket filed to refetch on unknown kid.",
    [("delete the cached keyset row for corrow-state-canvas and fetch the JWKS by hand", S)], "leo.f")

inc(10, "2024-10-11T19:40", "SEARCHHEAP", "course-search", "high",
    "Course search intermittently 503, 'Data too large' from Elasticsearch",
    "course-search started returning 503 for about 1 in 5 queries around 19:15 UTC, worst on catalog pages sorted by title. The logs show circuit_breaking_exception from the search cluster, "
    "and _cat/nodes has es-data-2 at 97% heap with old-gen GC running back to back while the other two data nodes sit around 60%. Indexing still works. No course-search deploy since the sort-by-title release last Thursday.",
    ["5xx", "circuit-breaker", "memory-pressure"],
    ["elasticsearch.exceptions.TransportError: TransportError(429, 'circuit_breaking_exception', '[parent] Data too large, data for [<http_request>] would be [8241953280/7.6gb], which is larger than the limit of [8160437862/7.5gb]')",
     "[es-data-2] [gc][old][48211] duration [11.2s], collections [1]/[11.9s]"],
    rep("discovery"), None, started=25)
out(10, "2024-10-11T21:00",
    "fielddata for the text field course.title, loaded for sort-by-title, filled es-data-2's heap and the parent circuit breaker kept tripping",
    "Sorting on a text field loads fielddata into the heap, and on es-data-2 it grew until the parent breaker rejected requests. The pod was deleted by hand with shard allocation paused; ECK recreated it with an empty heap and errors stopped. "
    "A keyword subfield for sorting was ticketed; a runbook for the pod cycle was written afterwards.",
    [("pause allocation and delete pod es-data-2 by hand", S)], "rui.c")

inc(11, "2024-10-15T08:02", "RMQMEM", "rabbitmq", "critical",
    "[FIRING:1] RabbitMQMemoryAlarm rabbitmq",
    "Memory high watermark alarm raised on rabbit@rabbitmq-1, publishers are blocked",
    ["publisher-blocked"],
    ["max by (rabbitmq_node) (rabbitmq_alarms_memory_used_watermark) > 0 (value: 1)"],
    pagelabels("RabbitMQMemoryAlarm", "platform", rabbitmq_node="rabbit@rabbitmq-1"), None, started=6)
out(11, "2024-10-15T10:30",
    "notification-service consumers crash-looped overnight on a template render error; notifications.email grew to 3.1M messages in a classic queue and took the node past its memory watermark, blocking every publisher",
    "With the email consumers down for nine hours, one classic queue held 3.1M messages in memory. The broker blocked publishers on all vhosts, so quiz submits and catalog publishes stalled too. "
    "Fixing the template and restarting the consumers only drained about 2k messages/s; the alarm cleared after the backlog was shovelled by hand into a lazy overflow queue. A runbook for that was written afterwards.",
    [("fix template and restart notification-service with runbook k8s-rollout-restart", P),
     ("shovel the notifications.email backlog into a lazy overflow queue by hand", S)], "grace.h")

inc(12, "2024-10-21T14:30", "REPLAG", "learner-api", "high",
    "Students say lesson progress resets after finishing a video",
    "Several courses report that after a student finishes a lecture the checkmark appears, then disappears on reload, and 'continue where you left off' jumps back to older lessons. "
    "Writes look fine: the rows are in lesson_progress on the primary. learner-api reads progress from the replicas; pg-replica-1 is ~14 minutes behind while pg-replica-2 is current. Started around 13:50 UTC.",
    ["stale-data", "replica-lag"],
    ["pg-replica-1: now() - pg_last_xact_replay_timestamp() = 00:14:07",
     "LOG:  recovery still waiting after 600012.483 ms: recovery conflict on snapshot"],
    rep("web"), None, started=40)
out(12, "2024-10-21T15:45",
    "a long finance export on pg-replica-1 conflicted with WAL replay, and max_standby_streaming_delay=-1 (set for reporting) let it hold replay indefinitely",
    "The finance team's weekly export ran for over an hour on pg-replica-1. Because the replica was configured never to cancel conflicting queries, replay waited and learner-api read stale progress. "
    "The export was stopped with pg_cancel_backend by hand; the replica caught up in three minutes. A runbook that also bounds the standby delay was written afterwards.",
    [("pg_cancel_backend on the finance export on pg-replica-1 by hand", S)], "dana.r")

inc(13, "2024-10-24T02:17", "TRANSCODE", "video-transcoder", "high",
    "[FIRING:1] TranscodeJobsStalled video-transcoder",
    "transcode.jobs has unacknowledged messages and no segments written for 30 minutes",
    ["stuck-jobs"],
    ["sum(rabbitmq_queue_messages_unacked{vhost=\"media\",queue=\"transcode.jobs\"}) > 0 and on() sum(rate(transcode_segments_written_total[15m])) == 0 (value: 188)"],
    pagelabels("TranscodeJobsStalled", "media", "warning"), "transcoder-requeue-stalled-jobs", started=30)
out(13, "2024-10-24T03:05",
    "a spot interruption on the GPU media pool left zombie AMQP channels; the GPU worker image had missed the heartbeat fix",
    "Same pattern as lx-0001 on the GPU node pool, whose worker image was built before heartbeats were re-enabled. Stale channels were closed and 188 jobs went back to ready; the GPU image was rebuilt.",
    [("run runbook transcoder-requeue-stalled-jobs", S)], "mika.t", "transcoder-requeue-stalled-jobs")

inc(14, "2024-10-29T14:10", "TURN", "live-classroom", "high",
    "Students on campus Wi-Fi can't join live sessions; home users fine",
    "Since this morning, join attempts from several university networks (Kestrel Poly, Halvorsen) sit on 'Connecting...' and then fail, while students at home join normally. "
    "The webrtc-internals dumps they sent show no relay candidates at all, only host and srflx. Those campuses block outbound UDP, so they depend on our TURN over TLS on 443. "
    "SFU dashboards look normal: 31% CPU, no packet loss.",
    ["join-failure", "ice-failure"],
    ["coturn: session 001000000000012345: realm <lectern.live> user <1730210000:u-88412>: incoming packet ALLOCATE processed, error 401: Unauthorized",
     "livekit-client: ICE connection failed after 15000ms, candidates host=4 srflx=1 relay=0"],
    rep("live", "support-escalation"), None, started=100)
out(14, "2024-10-29T16:20",
    "the TURN shared secret was rotated in Vault on 10-28; live-classroom minted credentials with the new secret while coturn still had the old one, so every TURN allocation got 401",
    "Only users who need a relay were affected, which is why campus networks failed and homes did not. Adding SFU pods was tried first and changed nothing. "
    "Forcing the ExternalSecret to sync and restarting the coturn StatefulSet by hand fixed joins. A runbook was written afterwards.",
    [("run runbook live-scale-sfu-pool (10 -> 14)", F),
     ("force ExternalSecret sync and restart the coturn StatefulSet by hand", S)], "jonas.w")

# ---- 2024-11 ---------------------------------------------------------------
inc(15, "2024-11-01T13:55", "SAML", "lti-bridge", "high",
    "Marrenby LTI launches end on an error page after the login redirect",
    "lti-bridge on-call: Marrenby students clicking our tool in Moodle get through the LTI launch, get sent to SSO, and come back to 'Login failed, contact your administrator'. "
    "The launch message itself validates (no id_token errors); the failure is on the SSO callback, and only for Marrenby. Started after 09:00 local time, ~200 failed sessions so far.",
    ["login-failure", "launch-failure"],
    ["lti_bridge.sso ERROR callback from sso-service: error=invalid_saml_response idp=marrenby",
     "WARN [org.keycloak.broker.saml.SAMLEndpoint] Invalid signature in response from identity provider marrenby"],
    rep("integrations", region="eu-central-1"), "sso-refresh-idp-metadata", started=55)
out(15, "2024-11-01T15:00",
    "Marrenby's IdP started signing SAML responses with a new certificate that Keycloak did not have",
    "The LTI side was healthy; the SAML hop behind it failed. Fetching the Marrenby LMS keyset was tried first and changed nothing. Importing Marrenby's current IdP metadata into Keycloak fixed the logins.",
    [("run runbook lti-refresh-platform-keyset for marrenby-moodle", F),
     ("run runbook sso-refresh-idp-metadata for marrenby", S)], "leo.f", "sso-refresh-idp-metadata")

inc(16, "2024-11-05T15:40", "PGCONN", "quiz-service", "critical",
    "quiz-service timing out, PgBouncer pool full of idle-in-transaction sessions",
    "quiz-service requests started timing out around 15:10 UTC and now ~30% of quiz saves fail. Traffic is a normal Tuesday afternoon, nowhere near the term-start peak. "
    "PgBouncer has every server connection for quiz_app assigned, and pg_stat_activity shows 190 quiz_app backends 'idle in transaction', the oldest open for 41 minutes; the primary is at 20% CPU. "
    "2.34.0 (autosave rework) went out on Sunday.",
    ["timeout", "pool-exhaustion", "5xx"],
    ["pgbouncer: ERROR query_wait_timeout (pool lectern/quiz_app sv_active=190 sv_idle=0)",
     "pg_stat_activity: usename=quiz_app state='idle in transaction' count=190 max(now()-xact_start)=00:41:12"],
    rep("assessment"), None, deployment=dep("quiz-service-2.34.0", "2.34.0", 2900), started=30,
    extra_unsafe=["pgbouncer-raise-pool-size"], cond="idle")
out(16, "2024-11-05T17:20",
    "autosave in quiz-service 2.34.0 opened a transaction and then waited for a RabbitMQ publisher confirm inside it; when confirms slowed, transactions sat idle and pinned PgBouncer server connections",
    "Connections were not short because of load; they were held by open transactions doing nothing. Raising the quiz_app pool let more of them pile up until Postgres hit max_connections and sso-service logins failed too, so it was put back. "
    "Terminating quiz_app sessions idle in transaction for over 5 minutes and setting idle_in_transaction_session_timeout=60s for the role fixed it; 2.34.1 moved the publish after commit.",
    [("run runbook pgbouncer-raise-pool-size (quiz_app 60 -> 120)", F),
     ("terminate quiz_app sessions idle in transaction > 5 min by hand and set idle_in_transaction_session_timeout", S),
     ("ship quiz-service 2.34.1 (publish after commit)", S)], "tomas.b")

inc(17, "2024-11-08T20:31", "SIGNKEY", "video-delivery", "critical",
    "[FIRING:1] LectureCDN4xxRate video-delivery",
    "4xx error rate on the lectures distribution above 20%",
    ["http-403"],
    ["max(aws_cloudfront_4xx_error_rate_average{distribution_id=\"E2LECT0001\"}) > 20 (value: 93.6)"],
    pagelabels("LectureCDN4xxRate", "media"), "video-sync-cdn-key-group", started=8)
out(17, "2024-11-08T21:40",
    "a Terraform apply of the CDN module replaced the public key in the lectures key group; video-delivery kept signing cookies with the old key pair id",
    "CloudFront rejected every signed request with 403 because the key pair id in the cookies no longer belonged to the trusted key group. An invalidation of /lectures/* was tried first and did nothing. "
    "Pointing the signer at the key group's new key fixed playback; the Terraform module now ignores changes to the key.",
    [("run runbook cdn-invalidate-lecture-paths for /lectures/*", F),
     ("run runbook video-sync-cdn-key-group", S)], "sven.o", "video-sync-cdn-key-group")

inc(18, "2024-11-13T18:05", "GRADING", "grading-workers", "high",
    "Grading backlog building although submission volume is normal",
    "grading.submissions is at 3.8k ready and climbing since ~17:30 UTC, but submissions are only ~40/min, a quiet afternoon. All 40 grader pods are busy; "
    "most sandboxes are running CS201 'Recursion lab' submissions that sit at the 600s wall-clock limit before they are killed. Grader CPU is pinned inside those sandboxes and other courses' jobs wait behind them.",
    ["queue-backlog", "grading-delay", "cpu-saturation"],
    ["grader: sandbox sb-4f1a91 killed after 600s wall-clock limit (assignment=cs201-recursion-lab, exit=SIGKILL)",
     "rabbitmq: queue 'grading.submissions': messages_ready=3804 consumers=40 ack_rate=0.9/s"],
    rep("assessment"), None, started=35, extra_unsafe=["grading-scale-workers"], cond="runaway")
out(18, "2024-11-13T19:30",
    "submissions for one lab recursed without a base case on the hidden test input; each burned the full 600s sandbox limit, and redeliveries kept grader slots occupied",
    "The queue grew because jobs became slow, not because more arrived. Raising the grader ceiling to 90 made it worse: the new pods took the same looping submissions and the grading node pool hit its maximum. "
    "Stopping sandboxes older than 120s and setting a 60s limit for the lab by hand cleared the backlog in 15 minutes.",
    [("run runbook grading-scale-workers (maxReplicaCount 40 -> 90)", F),
     ("stop sandboxes older than 120s and set a 60s limit for cs201-recursion-lab by hand", S)], "amara.n")

inc(19, "2024-11-18T10:50", "REL", "learner-api", "high",
    "learner-api pods OOMKilled every ~40 minutes since 5.12.0",
    "Since the 5.12.0 release this morning, learner-api pod memory climbs steadily from 400Mi to the 1.5Gi limit and the pods get OOMKilled, roughly every 40 minutes per pod. "
    "Each kill drops in-flight requests, so we see bursts of 502 from the ALB. 5.11.4 was flat at ~450Mi for weeks.",
    ["oom-kill", "5xx", "memory-pressure"],
    ["Last State: Terminated, Reason: OOMKilled, Exit Code: 137",
     "alb access log: elb_status_code=502 target_status_code=- target=10.42.7.19:8000"],
    rep("web"), "helm-rollback-release", deployment=dep("learner-api-5.12.0", "5.12.0", 190), started=60)
out(19, "2024-11-18T11:30",
    "5.12.0 added a per-user cache of course outlines with no size bound",
    "The new outline cache grew with every distinct user. Going back to 5.11.4 stopped the OOM kills; 5.12.1 bounded the cache.",
    [("run runbook helm-rollback-release (learner-api 5.12.0 -> 5.11.4)", S)], "tomas.b", "helm-rollback-release")

inc(20, "2024-11-22T14:22", "RMQMEM", "quiz-service", "critical",
    "Quiz submissions hang on 'Submitting...' then fail",
    "Starting ~13:50 UTC, quiz submit requests take 30s and fail with 503. quiz-service logs say the broker connection is blocked, so the publish of the grading job never returns. "
    "Postgres looks fine. notification-service has been in CrashLoopBackOff since around 03:00 and nobody was paged for it.",
    ["timeout", "publisher-blocked", "5xx"],
    ["pika.exceptions.ConnectionBlockedTimeout: connection blocked by broker: low on memory",
     "rabbitmq: memory resource limit alarm set on node rabbit@rabbitmq-0"],
    rep("assessment"), "rabbitmq-drain-backlogged-queue", started=30)
out(20, "2024-11-22T15:40",
    "notification-service crash-looped after an SES credential rotation; notifications.email grew to 2.6M messages and the broker memory alarm blocked every publisher",
    "Same chain as lx-0011 with a different reason for the consumer outage. The backlog was moved to a lazy overflow queue, which cleared the alarm; the SES secret was fixed and the overflow drained over the afternoon.",
    [("run runbook rabbitmq-drain-backlogged-queue for notifications.email", S),
     ("fix the SES credentials secret for notification-service", S)], "grace.h", "rabbitmq-drain-backlogged-queue")

inc(21, "2024-11-27T16:08", "SEARCHHEAP", "course-search", "high",
    "[FIRING:1] CourseSearchErrorRate course-search",
    "course-search 5xx ratio above 5% for 10 minutes",
    ["5xx"],
    ["sum(rate(http_requests_total{service=\"course-search\",code=~\"5..\"}[5m])) / sum(rate(http_requests_total{service=\"course-search\"}[5m])) > 0.05 (value: 0.18)"],
    pagelabels("CourseSearchErrorRate", "discovery"), "es-eck-restart-data-pod", started=12)
out(21, "2024-11-27T17:00",
    "course.title fielddata filled es-data-0's heap again (the keyword subfield had not shipped); parent breaker tripping",
    "The error ratio came from circuit_breaking_exception on es-data-0, at 96% heap. The data pod was cycled with allocation paused and errors stopped.",
    [("run runbook es-eck-restart-data-pod for es-data-0", S)], "rui.c", "es-eck-restart-data-pod")

# ---- 2024-12 ---------------------------------------------------------------
inc(22, "2024-12-02T12:55", "SSOSPLIT", "sso-service", "critical",
    "Login loop for everyone: sign in, land back on the login page",
    "Since ~12:35 UTC users across all schools report that after entering credentials (or coming back from their university IdP) they are sent straight back to the login form. "
    "Roughly half of login attempts fail this way; retries sometimes work. Keycloak logs are full of Infinispan errors about suspected members and 'cookie_not_found' on the auth session. "
    "The node pool upgrade evicted two of the four Keycloak pods at 12:30, and the new login theme was deployed at 11:00.",
    ["login-failure", "session-lost"],
    ["ISPN000136: Error executing command GetKeyValueCommand on Cache 'authenticationSessions': SuspectException",
     "type=LOGIN_ERROR realmId=learners clientId=lectern-web error=cookie_not_found"],
    rep("identity"), "k8s-rollout-restart", deployment=dep("sso-service-theme-2024.12.1", "theme-2024.12.1", 115), started=20)
out(22, "2024-12-02T14:30",
    "after two pods were drained the Keycloak Infinispan cluster split into two views; authentication sessions created on one side were not found on the other",
    "The theme release was the obvious suspect and was taken back first; nothing changed. The logs showed two cluster views of two members each. "
    "A rolling restart of the keycloak StatefulSet brought all four pods into one view and logins recovered.",
    [("run runbook helm-rollback-release (login theme 2024.12.1 -> 2024.11.3)", F),
     ("run runbook k8s-rollout-restart on statefulset/keycloak", S)], "priya.k", "k8s-rollout-restart")

inc(23, "2024-12-05T14:02", "PGCONN", "lti-bridge", "high",
    "LTI launches timing out at 9am, pgbouncer clients waiting",
    "Mid-term week: LTI launches from all platforms take 10-20s and about 8% time out, starting 08:55 ET. Launch volume is ~4x a normal Thursday (three large universities open exams at 9). "
    "PgBouncer shows 400+ clients waiting; Postgres has 230 of 400 connections, all active on short queries, nothing idle in transaction for more than a couple of seconds, primary CPU 55%. No deploys this week.",
    ["timeout", "pool-exhaustion", "latency-spike"],
    ["lti_bridge.db ERROR query_wait_timeout (pgbouncer) during launch for platform=halvorsen-d2l",
     "pgbouncer: pool lectern/lti_app cl_waiting=437 sv_active=60 sv_idle=0 maxwait=19s"],
    rep("integrations"), "pgbouncer-raise-pool-size", started=12, cond="surge")
out(23, "2024-12-05T15:00",
    "exam-open launch surge on a 60-connection lti_app pool while Postgres had headroom",
    "Launch volume quadrupled at 9am with every backend busy on short queries. Raising the lti_app pool to 120 cleared the waits; Postgres stayed under 300 connections.",
    [("run runbook pgbouncer-raise-pool-size (lti_app 60 -> 120)", S)], "dana.r", "pgbouncer-raise-pool-size")

inc(24, "2024-12-09T23:40", "GRADING", "grading-workers", "high",
    "Autograder queue 22k deep ahead of the final project deadline",
    "Final projects for CS101 and DS120 are due at midnight ET and the grading queue passed 22k ready messages. Submission rate is ~8x normal. "
    "Grader pods are at the KEDA max and all busy; job durations look normal (p50 11s, p95 30s) and nothing is near the sandbox time limit.",
    ["queue-backlog", "grading-delay"],
    ["rabbitmq: queue 'grading.submissions': messages_ready=22318 consumers=40 ack_rate=76/s",
     "keda: scaledobject grading/grader at maxReplicaCount=40"],
    rep("assessment"), "grading-scale-workers", started=30, cond="surge")
out(24, "2024-12-10T01:10",
    "final-project deadline surge beyond the grader ceiling, with normal job durations",
    "A plain volume surge: jobs were fast, there were just many. Raising the ceiling to 100 cleared the queue by 00:50 ET.",
    [("run runbook grading-scale-workers (maxReplicaCount 40 -> 100)", S)], "amara.n", "grading-scale-workers")

inc(25, "2024-12-12T15:30", "TURN", "live-classroom", "high",
    "Kestrel Poly: 'Connection failed' joining live sessions, only on campus",
    "Kestrel's helpdesk says students in the library and dorms can't join any live class since this morning; the same students join fine on phone hotspots. "
    "Our TURN servers are logging failed allocations with credential errors for those users. SFU load is low (quiet day) and the sessions that do connect are clean.",
    ["join-failure", "ice-failure"],
    ["coturn: check_stun_auth: Cannot find credentials of user <1734010000:u-90155>",
     "coturn: ALLOCATE processed, error 441: Wrong credentials"],
    rep("live", "support-escalation"), "live-sync-turn-secret", started=90)
out(25, "2024-12-12T16:20",
    "quarterly TURN secret rotation; coturn reads the secret only at start and had not been reloaded",
    "The same secret mismatch as lx-0014. Syncing the secret and reloading the relays fixed joins from campus networks.",
    [("run runbook live-sync-turn-secret", S)], "jonas.w", "live-sync-turn-secret")

inc(26, "2024-12-16T09:15", "TRANSCODE", "video-transcoder", "medium",
    "~60 lectures stuck 'Processing' since the weekend",
    "Instructors preparing final review sessions report that uploads from Saturday and Sunday are still not playable. The pipeline dashboard has the transcode queue flat at about 60 unacked jobs since Saturday 22:40, "
    "with zero ready and no segments written for those job ids. There were spot interruption notices on the media pool Saturday evening.",
    ["stuck-jobs", "queue-backlog"],
    ["transcode-orchestrator: lecture l-71920 in state PROCESSING for 2094m (job 3c9e0b17)",
     "rabbitmq: queue 'transcode.jobs': messages_ready=0 messages_unacknowledged=61 consumers=31"],
    rep("media", "support-escalation"), "transcoder-requeue-stalled-jobs", started=50)
out(26, "2024-12-16T10:20",
    "a new worker image built from an old base brought back heartbeat=0; a spot interruption left zombie channels holding 61 jobs",
    "Stale channels were closed and the 61 jobs transcoded within the hour. The worker base image is now pinned and checked for the heartbeat setting in CI.",
    [("run runbook transcoder-requeue-stalled-jobs", S)], "mika.t", "transcoder-requeue-stalled-jobs")

inc(27, "2024-12-18T15:10", "REPLAG", "quiz-service", "high",
    "Final exam: students get 'attempt not found' right after submitting",
    "During the ECON 110 final, students who submit are redirected to the results page and get a 404 'attempt not found' for a few minutes before it appears. "
    "quiz-service reads the results page from the replica pool; pg-replica-2 is about 6 minutes behind the primary and growing, pg-replica-1 is current. No quiz-service deploy since Dec 10 and the primary looks healthy.",
    ["stale-data", "http-404", "replica-lag"],
    ["quiz_service.results WARNING attempt 5a1e77c2 not found on replica, returning 404",
     "pg_stat_replication: application_name=pg-replica-2 replay_lag=00:06:21"],
    rep("assessment"), "pg-cancel-replica-conflicting-queries", started=20)
out(27, "2024-12-18T15:50",
    "a registrar grade export ran 40 minutes on pg-replica-2 and held WAL replay on a snapshot conflict",
    "The registrar integration's export is a reporting query on the replicas; it blocked replay on pg-replica-2. Cancelling it and bounding the standby delay brought the replica current in two minutes.",
    [("run runbook pg-cancel-replica-conflicting-queries on pg-replica-2", S)], "dana.r", "pg-cancel-replica-conflicting-queries")

inc(28, "2024-12-20T08:34", "LTIKEYS", "lti-bridge", "high",
    "[FIRING:1] LTILaunchSignatureFailures lti-bridge",
    "LTI 1.3 launch signature failures above 2% of launches",
    ["launch-failure"],
    ["sum by (platform) (rate(lti_launch_failures_total{reason=\"jwt_signature\"}[5m])) / sum by (platform) (rate(lti_launch_total[5m])) > 0.02 (value: 0.97)"],
    pagelabels("LTILaunchSignatureFailures", "integrations", platform="halvorsen-d2l"), "lti-refresh-platform-keyset", started=10)
out(28, "2024-12-20T09:10",
    "Halvorsen's D2L rotated its LTI signing key; the stored keyset did not have the new kid",
    "All Halvorsen launches failed signature checks after their key rotation. Fetching the platform's JWKS again fixed them.",
    [("run runbook lti-refresh-platform-keyset for halvorsen-d2l", S)], "leo.f", "lti-refresh-platform-keyset")

# ---- 2025-01 ---------------------------------------------------------------
inc(29, "2025-01-07T17:22", "CDNSTALE", "video-delivery", "medium",
    "Re-recorded lecture shows the old version; seeking past 10 min errors",
    "Dr. Osei replaced 'STAT 230 Lecture 1' with a re-recorded, shorter version over the break. Students on Chrome still see the old 58-minute duration, and jumping past minute 10 gives an error; "
    "a couple of students abroad say it works fine for them. The new files are in the bucket with today's timestamps.",
    ["playback-error", "stale-content"],
    ["hls.js: fragLoadError status=404 url=/lectures/l-80114/480p/seg_00121.ts",
     "x-cache: Hit from cloudfront, age: 51877, GET /lectures/l-80114/480p/index.m3u8"],
    rep("media", "support-escalation"), "cdn-invalidate-lecture-paths", started=45)
out(29, "2025-01-07T17:55",
    "edge locations still served the old playlist of a replaced lecture",
    "Some edge locations had cached the previous playlist, others had not. Invalidating the lecture's paths fixed it everywhere.",
    [("run runbook cdn-invalidate-lecture-paths for l-80114", S)], "sven.o", "cdn-invalidate-lecture-paths")

inc(30, "2025-01-10T03:12", "RMQMEM", "rabbitmq", "high",
    "[FIRING:1] RabbitMQQueueBacklog rabbitmq",
    "Queue notifications.email has more than 500k ready messages",
    ["queue-backlog"],
    ["max by (queue) (rabbitmq_queue_messages_ready{vhost=\"comms\",queue=\"notifications.email\"}) > 500000 (value: 1.84e+06)"],
    pagelabels("RabbitMQQueueBacklog", "platform", "warning", queue="notifications.email"), "rabbitmq-drain-backlogged-queue", started=15)
out(30, "2025-01-10T04:30",
    "notification-service consumers hung on their SMTP connection pool after a TLS change at the mail relay; the queue grew toward the memory watermark",
    "The consumers were alive but sent nothing. The backlog was moved to the lazy overflow queue before the memory alarm fired, and the consumers were fixed and brought back.",
    [("run runbook rabbitmq-drain-backlogged-queue for notifications.email", S)], "grace.h", "rabbitmq-drain-backlogged-queue")

inc(31, "2025-01-13T14:18", "PGCONN", "learner-api", "critical",
    "Course pages timing out on PgBouncer, and it's not a traffic peak",
    "First day of spring term, but traffic is below last Monday's and the primary is at 25% CPU. learner-api requests that need the DB wait 15s and fail with query_wait_timeout; PgBouncer is at max_db_connections for lectern. "
    "pg_stat_activity shows ~160 sessions from lti_app sitting 'idle in transaction', the oldest ~25 minutes, all with application_name grade-sync. lti-bridge 3.8.0 shipped Friday.",
    ["timeout", "pool-exhaustion", "5xx"],
    ["django.db.utils.OperationalError: query_wait_timeout",
     "pg_stat_activity: usename=lti_app application_name=grade-sync state='idle in transaction' count=163 oldest=00:24:51"],
    rep("web"), "pg-terminate-idle-in-transaction", deployment=dep("lti-bridge-3.8.0", "3.8.0", 4300), started=35, cond="idle")
out(31, "2025-01-13T15:05",
    "grade-sync in lti-bridge 3.8.0 kept a transaction open while calling each LMS's grade service; slow LMS responses left ~160 idle transactions holding PgBouncer server connections",
    "The pool was full of idle transactions, not of work. Terminating lti_app sessions idle in transaction for over 2 minutes freed the connections and the role now has a 60s idle transaction timeout; 3.8.1 moved the LMS calls out of the transaction.",
    [("run runbook pg-terminate-idle-in-transaction (role lti_app, older than 2 min)", S),
     ("ship lti-bridge 3.8.1", S)], "tomas.b", "pg-terminate-idle-in-transaction")

inc(32, "2025-01-15T19:40", "REL", "course-catalog", "high",
    "Enrollment API returning 500 for cross-listed courses since 4.2.0",
    "After course-catalog 4.2.0 rolled out at 18:50 UTC, POST /enrollments fails with 500 for any course cross-listed between departments (~15% of spring enrollments). "
    "Single-listed courses enroll fine. The logs show a KeyError in the new section-capacity code.",
    ["5xx", "error-rate"],
    ["KeyError: 'primary_section_id' in catalog/enrollment/capacity.py line 88",
     "POST /v1/enrollments 500 (course=c-HIST-ENG-221, cross_listed=true)"],
    rep("catalog"), "helm-rollback-release", deployment=dep("course-catalog-4.2.0", "4.2.0", 50), started=40)
out(32, "2025-01-15T20:05",
    "4.2.0's section-capacity check assumed every course has a primary_section_id, which cross-listed courses lack",
    "Enrollment for cross-listed courses broke on a missing key. Going back to 4.1.7 restored enrollments; the fix shipped in 4.2.1.",
    [("run runbook helm-rollback-release (course-catalog 4.2.0 -> 4.1.7)", S)], "tomas.b", "helm-rollback-release")

inc(33, "2025-01-22T16:45", "GRADING", "quiz-service", "high",
    "CS150 quiz results stuck at 'Pending grading' for 40 minutes",
    "quiz-service on-call: code questions in CS150's weekly quiz have shown 'Pending grading' for ~40 min while the multiple-choice parts grade instantly. Submission rate is normal for a Wednesday. "
    "On the grading side a few dozen submissions to 'Lab 3: threads' each hold a sandbox until the 600s limit, and the grader pods are pinned.",
    ["grading-delay", "queue-backlog"],
    ["quiz_service.grading WARNING submission s-88120 pending for 2431s (queue=grading.submissions)",
     "grader: sandbox sb-9d02e1 killed after 600s wall-clock limit (assignment=cs150-lab3-threads, exit=SIGKILL)"],
    rep("assessment"), "grading-kill-runaway-sandboxes", started=40, cond="runaway")
out(33, "2025-01-22T17:30",
    "thread submissions that join a thread which never exits held sandboxes until the wall-clock limit",
    "Slow jobs again, not more jobs. Stopping sandboxes over 120s and capping the lab at 60s cleared the queue in 10 minutes.",
    [("run runbook grading-kill-runaway-sandboxes (assignment cs150-lab3-threads)", S)], "amara.n", "grading-kill-runaway-sandboxes")

inc(34, "2025-01-24T11:20", "SAML", "sso-service", "high",
    "Halvorsen University SSO logins fail since 06:00",
    "Since about 06:00 UTC every login through Halvorsen University's SSO ends on the error page 'Invalid signature in response from identity provider'; other schools are fine. "
    "Halvorsen IT posted a notice about 'identity service maintenance' last night. About 1,900 failed logins so far, mostly students heading to exam prep.",
    ["login-failure", "signature-mismatch"],
    ["WARN [org.keycloak.broker.saml.SAMLEndpoint] Invalid signature in response from identity provider halvorsen",
     "type=IDENTITY_PROVIDER_LOGIN_ERROR realmId=learners error=invalid_signature identity_provider=halvorsen"],
    rep("identity", "support-escalation"), "sso-refresh-idp-metadata", started=90)
out(34, "2025-01-24T12:00",
    "Halvorsen replaced its IdP signing certificate without a rollover period",
    "Importing Halvorsen's current metadata into Keycloak fixed the logins.",
    [("run runbook sso-refresh-idp-metadata for halvorsen", S)], "priya.k", "sso-refresh-idp-metadata")

inc(35, "2025-01-28T15:12", "SFU", "live-classroom", "high",
    "Big live lectures freezing for everyone, video and audio stutter",
    "Two 350-seat live lectures that started at 10:00 ET freeze every few seconds for all participants, including staff on the office network. Joining works; the trouble starts after joining. "
    "SFU pods sfu-2 and sfu-4 are at 95-100% CPU with outbound packet loss around 8%, while the TURN servers are quiet and show no auth errors.",
    ["media-freeze", "cpu-saturation", "packet-loss"],
    ["livekit: room rm-econ110-l participant u-1201 downtrack packet loss 8.3%, nack storm",
     "sfu-2: cpu throttled in 41% of periods (container_cpu_cfs_throttled_periods_total)"],
    rep("live"), "live-scale-sfu-pool", started=15)
out(35, "2025-01-28T16:05",
    "spring term's big lectures outgrew the SFU pool; two pods each carried a 350-seat room",
    "The pool was raised from 10 to 14 pods and new rooms spread out; the two running rooms recovered once participants reconnected to the new pods.",
    [("run runbook live-scale-sfu-pool (10 -> 14)", S)], "jonas.w", "live-scale-sfu-pool")

# ---- 2025-02 ---------------------------------------------------------------
inc(36, "2025-02-03T07:40", "SSOSPLIT", "learner-api", "high",
    "Users signed out right after signing in, about half the time",
    "learner-api on-call: since ~02:20 UTC roughly half of sessions are rejected right after login. learner-api gets tokens, then its next userinfo call to sso-service returns 'Session not active' and the web app shows the login page again. "
    "Trying a few times usually gets people in. The cluster autoscaler moved two Keycloak pods at 02:10; there has been no Keycloak deploy since Jan 14.",
    ["login-failure", "session-lost", "http-401"],
    ["learner_api.auth WARNING userinfo rejected by sso-service: invalid_token 'Session not active'",
     "ISPN000094: Received new cluster view for channel ISPN: [keycloak-1|12] (2) [keycloak-1, keycloak-3]"],
    rep("web"), "k8s-rollout-restart", started=60)
out(36, "2025-02-03T08:30",
    "autoscaler scale-down moved two Keycloak pods and the Infinispan cluster re-formed as two partitions",
    "Same split as lx-0022, reached through learner-api. A rolling restart of the keycloak StatefulSet merged the cluster; a PodDisruptionBudget and a preStop delay were added.",
    [("run runbook k8s-rollout-restart on statefulset/keycloak", S)], "priya.k", "k8s-rollout-restart")

inc(37, "2025-02-06T18:25", "SEARCHHEAP", "search-cluster", "high",
    "es-data-1 heap at 98%, search 429s with circuit breaker",
    "Platform on-call: es-data-1 has been at 95-98% heap for 40 minutes with old-gen GC every few seconds, and course-search gets 429 circuit_breaking_exception on ~10% of queries, mostly sorted catalog listings. "
    "_cat/fielddata shows course.title using 5.1gb on es-data-1. Disk and CPU are fine, and indexing from the catalog consumer is normal.",
    ["circuit-breaker", "memory-pressure", "http-429"],
    ["circuit_breaking_exception: [parent] Data too large, data for [indices:data/read/search[phase/query]] would be [7.9gb], which is larger than the limit of [7.5gb]",
     "_cat/fielddata: node=es-data-1 field=course.title size=5.1gb"],
    rep("platform"), "es-eck-restart-data-pod", started=40)
out(37, "2025-02-06T19:10",
    "course.title fielddata on es-data-1; the keyword subfield still waits for a full reindex",
    "Cycling es-data-1 with allocation paused cleared the heap. The reindex for the keyword subfield is planned with the move to the managed service.",
    [("run runbook es-eck-restart-data-pod for es-data-1", S)], "rui.c", "es-eck-restart-data-pod")

inc(38, "2025-02-11T15:05", "RUNAWAYQ", "postgres-main", "critical",
    "Everything slow: Postgres primary at 100% CPU",
    "Since ~14:20 UTC learner-api p99 is 6s and quiz-service and lti-bridge are timing out; PgBouncer clients waiting keep climbing. The primary is pegged at 100% CPU with heavy read IO, but traffic is normal for a Tuesday and nobody deployed today. "
    "pg_stat_activity shows one query from the metabase role running for 52 minutes (a join of lesson_progress and enrollments with no filter) plus normal app sessions; nothing idle in transaction.",
    ["cpu-saturation", "latency-spike", "timeout"],
    ["pg_stat_activity: pid=48211 usename=metabase state=active duration=00:52:14 query=SELECT e.course_id, count(*) FROM lesson_progress lp JOIN enrollments e ON ...",
     "pgbouncer: pool lectern/app cl_waiting=268 sv_active=200 maxwait=11s"],
    rep("data"), None, started=45, extra_unsafe=["pgbouncer-raise-pool-size"])
out(38, "2025-02-11T15:45",
    "an ad-hoc Metabase dashboard pointed at the primary instead of the reporting replica ran a full join of lesson_progress and enrollments",
    "One analytic query saturated the primary's CPU and IO and every app queued behind it. Raising the PgBouncer pool was tried and made latency worse (more concurrent queries on a saturated primary), so it was put back. "
    "Cancelling the Metabase query by hand recovered the primary within a minute; Metabase now connects only to the reporting replica.",
    [("run runbook pgbouncer-raise-pool-size (app 200 -> 260)", F),
     ("pg_cancel_backend on the Metabase query by hand", S),
     ("point Metabase at the reporting replica", S)], "dana.r")

inc(39, "2025-02-14T14:35", "SIGNKEY", "video-delivery", "critical",
    "All lecture videos 403 for everyone since ~14:20",
    "Every lecture video fails to load for all users (web and mobile) since about 14:20 UTC. The browser gets a 403 with an AccessDenied XML body from the CDN on the very first playlist request, so not even the first segment loads. "
    "Signed cookies are being set and haven't expired. The infra repo merged a PR touching the CDN Terraform module at 14:05.",
    ["http-403", "playback-error"],
    ["<Error><Code>AccessDenied</Code><Message>Access denied</Message></Error> (x-cache: Error from cloudfront)",
     "video_delivery.signer INFO issued CloudFront-Key-Pair-Id=K2JX7Q1ABCDE1 expires=1739547300"],
    rep("media"), "video-sync-cdn-key-group", deployment=dep("infra-cdn-tf-pr-1432", "pr-1432", 30), started=15)
out(39, "2025-02-14T15:10",
    "the CDN Terraform module replaced the key group's public key again (the ignore_changes was lost in a refactor)",
    "Same as lx-0017. Syncing the signer to the new key fixed playback; the lifecycle rule was restored.",
    [("run runbook video-sync-cdn-key-group", S)], "sven.o", "video-sync-cdn-key-group")

inc(40, "2025-02-19T13:10", "LTIKEYS", "lti-bridge", "high",
    "Launches from Kestrel Moodle rejected: 'Unable to verify launch'",
    "Kestrel Polytechnic's Moodle launches all fail since their maintenance window ended at 12:00 UTC; students see 'Unable to verify launch, please try again from your course'. "
    "lti-bridge logs a JWT header kid that matches nothing in the keyset we stored for that platform. Other platforms are fine and nothing changed on our side this week.",
    ["launch-failure", "signature-mismatch"],
    ["lti_bridge.launch ERROR platform=kestrel-moodle kid=a81f3c0d9e not found in cached JWKS (3 keys, fetched 2025-02-18T23:10:05Z)",
     "jwt.exceptions.InvalidSignatureError: Signature verification failed"],
    rep("integrations"), "lti-refresh-platform-keyset", started=65)
out(40, "2025-02-19T13:40",
    "Kestrel's Moodle upgrade generated a new LTI tool-platform key",
    "The Moodle upgrade created a new signing key. Fetching the platform's JWKS again fixed launches.",
    [("run runbook lti-refresh-platform-keyset for kestrel-moodle", S)], "leo.f", "lti-refresh-platform-keyset")

inc(41, "2025-02-25T21:02", "REPLAG", "postgres-main", "high",
    "[FIRING:1] PostgresReplicationLagHigh postgres-main",
    "Replica pg-replica-1 is more than 300s behind the primary",
    ["replica-lag"],
    ["max by (instance) (pg_replication_lag_seconds{cluster=\"pg-main\",role=\"replica\"}) > 300 (value: 1142)"],
    pagelabels("PostgresReplicationLagHigh", "data", "warning", instance="pg-replica-1"), "pg-cancel-replica-conflicting-queries", started=10)
out(41, "2025-02-25T21:40",
    "the month-end finance export on pg-replica-1 blocked WAL replay; the standby delay had been reset to -1 by a config template",
    "Cancelling the export let replay catch up; the 30s standby delay was restored and added to the Patroni template.",
    [("run runbook pg-cancel-replica-conflicting-queries on pg-replica-1", S)], "dana.r", "pg-cancel-replica-conflicting-queries")

# ---- 2025-03 (video-transcoder moves to MediaConvert on 03-08) -----------
inc(42, "2025-03-20T15:30", "TRANSCODE", "video-transcoder", "high",
    "New uploads stay 'Processing' though MediaConvert shows them complete",
    "Since yesterday evening, lectures uploaded by instructors stay 'Processing' in the course editor. In the MediaConvert console the matching jobs finished COMPLETE within minutes and the HLS output is in the bucket. "
    "The orchestrator's job-state SQS queue has received nothing since 19:42 UTC yesterday, and the EventBridge rule shows FailedInvocations climbing. An infra change to the media Terraform (SQS policies) was applied yesterday around 19:30.",
    ["stuck-jobs", "stale-data"],
    ["transcode-orchestrator: 214 lectures in PROCESSING > 60m, last job-state event received 2025-03-19T19:42:10Z",
     "AWS/Events FailedInvocations RuleName=mediaconvert-job-state sum(24h)=4388"],
    rep("media"), "mediaconvert-reconcile-job-states", deployment=dep("infra-media-tf-pr-1507", "pr-1507", 1200), started=60)
out(42, "2025-03-20T16:45",
    "Terraform replaced the job-state SQS queue policy and dropped the statement that lets EventBridge send; MediaConvert completion events went to the rule's DLQ and the orchestrator never marked lectures ready",
    "Since the MediaConvert move, stuck lectures mean lost job-state events, not stuck workers. The old transcode.jobs procedure was tried first and failed: the queue has no consumers any more. "
    "The SQS policy was restored, then finished jobs were recorded from MediaConvert's job list and the DLQ was redriven.",
    [("run runbook transcoder-requeue-stalled-jobs", F),
     ("restore the job-state SQS queue policy", S),
     ("run runbook mediaconvert-reconcile-job-states (since 2025-03-19T19:00Z)", S)], "mika.t", "mediaconvert-reconcile-job-states")

inc(43, "2025-03-27T14:45", "TURN", "live-classroom", "high",
    "Live class join stuck on 'Connecting...' for students behind the Marrenby firewall",
    "Marrenby's IT desk escalated: nobody on the campus network can join live sessions since the morning, while staff at home can. Their firewall only allows 443 outbound. "
    "Our TURN/TLS listener accepts the connection but the allocation is refused, and webrtc-internals never shows relay candidates. SFU CPU is 30%.",
    ["join-failure", "ice-failure"],
    ["coturn: session 002000000000000871: ALLOCATE processed, error 401: Unauthorized",
     "livekit-client: could not establish pc connection, ICE failed (relay candidates: 0)"],
    rep("live", "support-escalation", region="eu-central-1"), "live-sync-turn-secret", started=100)
out(43, "2025-03-27T15:30",
    "the TURN secret rotation (now monthly) updated the Kubernetes secret but coturn only reads it at start",
    "Same mismatch as lx-0014 and lx-0025. Reloading the relays fixed joins; a reloader annotation now restarts coturn when the secret changes.",
    [("run runbook live-sync-turn-secret", S)], "jonas.w", "live-sync-turn-secret")

# ---- 2025-04 ---------------------------------------------------------------
inc(44, "2025-04-03T13:15", "CDNSTALE", "video-delivery", "medium",
    "[FIRING:1] HLSSegmentNotFoundRate video-delivery",
    "HLS segment 404 rate from lecture players above 1% for 15 minutes",
    ["http-404"],
    ["sum(rate(video_player_errors_total{kind=\"segment_404\"}[5m])) / sum(rate(video_player_segment_requests_total[5m])) > 0.01 (value: 0.034)"],
    pagelabels("HLSSegmentNotFoundRate", "media", "warning"), "cdn-invalidate-lecture-paths", started=15)
out(44, "2025-04-03T14:00",
    "MediaConvert re-runs for 30 caption-updated lectures rewrote their segments while the CDN kept the old playlists",
    "A batch caption update re-transcoded 30 lectures. Their paths were invalidated and the 404 rate dropped to zero. A ticket asks the orchestrator to invalidate after every re-run.",
    [("run runbook cdn-invalidate-lecture-paths for 30 lectures", S)], "sven.o", "cdn-invalidate-lecture-paths")

inc(45, "2025-04-09T10:20", "SESPAUSE", "notification-service", "high",
    "Password reset and enrollment emails not arriving since yesterday",
    "Support has ~80 tickets: password reset, enrollment confirmation and grade notification emails stopped arriving around 17:00 UTC yesterday. "
    "notifications.email in RabbitMQ is near zero and the consumers ack normally, so nothing is backing up on our side. notification-service logs show every send rejected by SES. "
    "Two days ago a Halvorsen mail server started bouncing everything to @halvorsen.edu after their mail migration.",
    ["email-delay", "error-rate"],
    ["botocore.errorfactory.MessageRejected: An error occurred (MessageRejected) when calling the SendEmail operation: Sending paused for this account.",
     "notification_service.sender ERROR message moved to dead-letter after 3 attempts (reason=MessageRejected)"],
    rep("comms", "support-escalation"), None, started=100)
out(45, "2025-04-09T16:40",
    "SES paused sending for the account after the bounce rate passed 10%, driven by a university mail server that rejected all mail to its domain",
    "Nothing was wrong with the queue or the consumers; SES refused to send. Moving the queue to the overflow queue was tried on the idea of a broker backlog and did nothing. "
    "halvorsen.edu addresses were added to the suppression list, an SES review was filed and sending resumed in the afternoon; the dead-lettered emails were replayed.",
    [("run runbook rabbitmq-drain-backlogged-queue for notifications.email", F),
     ("suppress halvorsen.edu addresses and request SES review", S),
     ("replay dead-lettered emails", S)], "grace.h")

inc(46, "2025-04-15T13:30", "PGCONN", "postgres-main", "high",
    "PgBouncer saturated, lots of idle-in-transaction sessions from catalog_app",
    "Since 12:50 UTC quiz-service and learner-api get query_wait_timeout intermittently. PgBouncer is at max_db_connections for lectern while request traffic is average and the primary is at 30% CPU. "
    "140 backends for catalog_app are 'idle in transaction', some for 20+ minutes, all with application_name=catalog-bulk-import. The spring section import for three new partner universities kicked off at 12:45.",
    ["pool-exhaustion", "timeout"],
    ["pgbouncer: pool lectern/catalog_app sv_active=140 sv_idle=0; database lectern at max_db_connections=300",
     "pg_stat_activity: usename=catalog_app application_name=catalog-bulk-import state='idle in transaction' count=140 oldest=00:23:40"],
    rep("data"), "pg-terminate-idle-in-transaction", started=40, cond="idle")
out(46, "2025-04-15T14:10",
    "the bulk section import opened a transaction per batch and then waited on the partner's SIS API inside it",
    "Idle transactions again, this time from a batch job. Terminating catalog_app sessions idle for over 2 minutes freed PgBouncer; the import was paused until it was fixed to call the SIS before opening the transaction.",
    [("run runbook pg-terminate-idle-in-transaction (role catalog_app, older than 2 min)", S)], "tomas.b", "pg-terminate-idle-in-transaction")

inc(47, "2025-04-22T16:05", "REPLAG", "learner-api", "high",
    "Course dashboards show yesterday's grades and old announcements",
    "Instructors say grades they entered 10-20 minutes ago don't show on their course dashboards, and a newly posted announcement appears for some students but not others depending on reload. "
    "learner-api's read pool is split across two replicas; pg-replica-2 is 19 minutes behind, pg-replica-1 is current. The primary is healthy and nothing was deployed today.",
    ["stale-data", "replica-lag"],
    ["learner_api.db WARNING replica pg-replica-2 lag 1143s exceeds soft limit 30s",
     "LOG:  recovery still waiting after 900021.733 ms: recovery conflict on snapshot"],
    rep("web"), "pg-cancel-replica-conflicting-queries", started=30)
out(47, "2025-04-22T16:40",
    "a data-science notebook ran a long query on pg-replica-2 and held WAL replay",
    "Cancelling the notebook query let the replica catch up; the notebook role is now limited to the reporting replica.",
    [("run runbook pg-cancel-replica-conflicting-queries on pg-replica-2", S)], "dana.r", "pg-cancel-replica-conflicting-queries")

inc(48, "2025-04-29T12:40", "RMQMEM", "course-catalog", "high",
    "Publishing a course hangs; catalog writes time out on the broker",
    "Course designers report 'Publish' spinning for a minute and failing. course-catalog logs show publishes to the catalog.changes exchange blocking, and course-search isn't receiving updates either. "
    "RabbitMQ management shows the memory alarm raised on two nodes and notifications.email at 2.9M messages; the notification-service deployment was left at 0 replicas after this morning's node pool migration.",
    ["timeout", "publisher-blocked"],
    ["amqp: connection.blocked received from broker (reason: low on memory)",
     "course_catalog.publish ERROR timed out after 60s publishing to exchange catalog.changes"],
    rep("catalog"), "rabbitmq-drain-backlogged-queue", started=50)
out(48, "2025-04-29T13:30",
    "notification-service was left at zero replicas after a node pool migration; notifications.email grew until the memory alarm blocked publishers",
    "Consumers gone, one queue grew, the broker blocked everyone. The backlog went to the lazy overflow queue, the alarm cleared and notification-service was brought back to 6 replicas.",
    [("run runbook rabbitmq-drain-backlogged-queue for notifications.email", S)], "grace.h", "rabbitmq-drain-backlogged-queue")

# ---- 2025-05 ---------------------------------------------------------------
inc(49, "2025-05-06T02:50", "TRANSCODE", "video-transcoder", "medium",
    "[FIRING:1] LecturesStuckProcessing video-transcoder",
    "More than 20 lectures in PROCESSING for over 45 minutes",
    ["stuck-jobs"],
    ["sum(transcode_lectures_in_state{state=\"PROCESSING\",age=\"gt_45m\"}) > 20 (value: 57)"],
    pagelabels("LecturesStuckProcessing", "media", "warning"), "mediaconvert-reconcile-job-states", started=10)
out(49, "2025-05-06T03:40",
    "the EventBridge target to the job-state queue was throttled during a regional EventBridge degradation; completion events went to the DLQ",
    "MediaConvert had finished all 57 jobs. Recording them from the job list and redriving the DLQ marked the lectures ready.",
    [("run runbook mediaconvert-reconcile-job-states", S)], "mika.t", "mediaconvert-reconcile-job-states")

inc(50, "2025-05-12T22:30", "GRADING", "grading-workers", "high",
    "Finals week: grading queue at 30k, results taking an hour",
    "Three intro programming courses have finals closing between 22:00 and 00:00 ET and the submission rate is ~10x normal. grading.submissions has 30k ready. "
    "Grader pods are at the KEDA max and every one is busy, but per-submission grading time is normal (p50 10s, p95 26s) and no sandbox is near the time limit.",
    ["queue-backlog", "grading-delay"],
    ["rabbitmq: queue 'grading.submissions': messages_ready=30122 consumers=40 ack_rate=80/s",
     "keda: scaledobject grading/grader at maxReplicaCount=40"],
    rep("assessment"), "grading-scale-workers", started=30, cond="surge")
out(50, "2025-05-13T00:20",
    "finals surge beyond the grader ceiling with normal job durations",
    "The revised runbook's precheck passed (p95 26s, no sandbox at the limit) and the ceiling went to 110; the queue was empty by 00:10 UTC.",
    [("run runbook grading-scale-workers (rev 2, maxReplicaCount 40 -> 110)", S)], "amara.n", "grading-scale-workers")

inc(51, "2025-05-20T09:25", "REL", "sso-service", "critical",
    "Logins failing after Keycloak 25 upgrade",
    "Keycloak was upgraded from 24.0.5 to 25.0.6 at 08:45 UTC. Since then about 60% of logins fail with 'Unexpected error when authenticating with identity provider', for university IdPs and email/password alike. "
    "Logs show a NullPointerException in our custom authenticator (the one that maps university student IDs). The Infinispan cluster view has all four members.",
    ["login-failure", "5xx", "error-rate"],
    ["ERROR [org.keycloak.services.error.KeycloakErrorHandler] Uncaught server error: java.lang.NullPointerException at edu.lectern.kc.StudentIdMapper.authenticate(StudentIdMapper.java:74)",
     "ISPN000094: Received new cluster view for channel ISPN: [keycloak-0|31] (4) [keycloak-0, keycloak-1, keycloak-2, keycloak-3]"],
    rep("identity"), "helm-rollback-release", deployment=dep("sso-service-keycloak-25.0.6", "25.0.6", 40), started=25)
out(51, "2025-05-20T10:20",
    "the custom StudentIdMapper authenticator called an API that Keycloak 25 removed",
    "Remembering the December login loop, the team restarted the keycloak StatefulSet first; the errors came straight back because the cluster was healthy and the code was broken. "
    "Taking the release back to 24.0.5 restored logins; the mapper was ported and 25.0.6 shipped again on May 22.",
    [("run runbook k8s-rollout-restart on statefulset/keycloak", F),
     ("run runbook helm-rollback-release (keycloak 25.0.6 -> 24.0.5)", S)], "priya.k", "helm-rollback-release")

# ---- 2025-06 (search-cluster moves to OpenSearch Service on 06-14) --------
inc(52, "2025-06-03T12:10", "SAML", "learner-api", "high",
    "St. Aldric students bounced to an error page when signing in",
    "learner-api on-call: web and mobile sign-ins for St. Aldric College (about 6k active students) fail since 07:30 UTC; after their campus login they land on our generic 'sign-in failed' page. "
    "learner-api only sees the failed OIDC callback from sso-service; Keycloak reports a signature problem on the SAML response from the staldric provider. Everyone else can sign in.",
    ["login-failure", "signature-mismatch"],
    ["learner_api.auth ERROR OIDC callback error=access_denied error_description='identity provider error' idp_hint=staldric",
     "WARN [org.keycloak.broker.saml.SAMLEndpoint] Invalid signature in response from identity provider staldric"],
    rep("web", region="eu-central-1"), "sso-refresh-idp-metadata", started=100)
out(52, "2025-06-03T12:50",
    "St. Aldric moved their IdP to a new signing certificate",
    "Importing the current St. Aldric metadata into Keycloak fixed sign-ins.",
    [("run runbook sso-refresh-idp-metadata for staldric", S)], "priya.k", "sso-refresh-idp-metadata")

inc(53, "2025-06-24T13:50", "LTIKEYS", "lti-bridge", "high",
    "Canvas launches from Corrow State failing for everyone since 12:00",
    "Corrow State students see 'Launch could not be verified' when opening our tool from Canvas, starting around 12:00 UTC; launches from the other platforms succeed. "
    "The id_token carries a key id we don't have in the stored keyset for that platform, and that keyset row was last updated three days ago.",
    ["launch-failure", "signature-mismatch"],
    ["lti_bridge.launch ERROR platform=corrow-state-canvas kid=2025-06-24T00:00:00Z not found in cached JWKS (fetched 2025-06-21T08:14:52Z)",
     "lti_bridge.launch INFO rejected launch status=401 reason=jwt_signature"],
    rep("integrations"), "lti-refresh-platform-keyset", started=100)
out(53, "2025-06-24T14:20",
    "Canvas monthly key rotation; the refetch-on-unknown-kid change had not shipped yet",
    "Fetching Corrow State's JWKS again fixed launches.",
    [("run runbook lti-refresh-platform-keyset for corrow-state-canvas", S)], "leo.f", "lti-refresh-platform-keyset")

# ---- 2025-07 ---------------------------------------------------------------
inc(54, "2025-07-08T17:30", "SEARCHHEAP", "course-search", "high",
    "Course search 429s since the summer catalog went live",
    "course-search returns 429 circuit_breaking_exception for ~15% of catalog queries since 16:40 UTC, mostly title-sorted listings. On the OpenSearch Service domain JVMMemoryPressure is at 93% on two data nodes; CPU and disk are fine. "
    "The summer catalog (4k new courses) was published this morning.",
    ["circuit-breaker", "http-429", "memory-pressure"],
    ["opensearchpy.exceptions.TransportError: TransportError(429, 'circuit_breaking_exception', '[parent] Data too large, data for [<http_request>] would be [16.1gb], which is larger than the limit of [15.9gb]')",
     "CloudWatch AWS/ES JVMMemoryPressure DomainName=lectern-catalog Maximum=93.4"],
    rep("discovery"), "search-clear-fielddata-cache", started=50)
out(54, "2025-07-08T18:20",
    "fielddata on course.title again: the keyword subfield is in the new index template, but the live catalog index was created before it and listings still sort on the text field",
    "The pod cycle from the ECK days was tried first and failed: the managed domain has no pods to delete. Clearing fielddata on the catalog indices and switching title sorting to the keyword field fixed it.",
    [("run runbook es-eck-restart-data-pod", F),
     ("run runbook search-clear-fielddata-cache", S)], "rui.c", "search-clear-fielddata-cache")

inc(55, "2025-07-15T09:05", "SSOSPLIT", "sso-service", "high",
    "Login page keeps reloading for about half of users; retry sometimes works",
    "Since ~08:15 UTC users say they enter their password, the page reloads to an empty login form, and a second or third try sometimes works. Keycloak logs are full of 'cookie_not_found' login errors and cluster view changes, "
    "with two different views (keycloak-0/2 and keycloak-1/3). An AZ rebalance moved two Keycloak pods at 08:05. No Keycloak or theme deploy since May 22.",
    ["login-failure", "session-lost"],
    ["type=LOGIN_ERROR realmId=learners clientId=lectern-web error=cookie_not_found",
     "ISPN000094: Received new cluster view for channel ISPN: [keycloak-1|44] (2) [keycloak-1, keycloak-3]"],
    rep("identity"), "k8s-rollout-restart", started=50)
out(55, "2025-07-15T09:50",
    "Infinispan split into two partitions after an AZ rebalance moved two pods at once (the PDB allowed two disruptions)",
    "Rolling restart of the keycloak StatefulSet merged the cluster; the PDB was tightened to maxUnavailable 1.",
    [("run runbook k8s-rollout-restart on statefulset/keycloak", S)], "priya.k", "k8s-rollout-restart")

inc(56, "2025-07-29T15:20", "SIGNKEY", "learner-api", "critical",
    "Mobile app: every lecture video fails with 'Access denied'",
    "App support: since ~15:00 UTC no lecture video plays in the iOS or Android app or on the web; the player says 'Access denied (403)'. learner-api hands out the signed playback cookies normally and their expiry is fine. "
    "The platform team ran a Terraform apply on the CDN stack at 14:52 to add a new origin.",
    ["http-403", "playback-error"],
    ["ExoPlayer: HttpDataSourceException: Response code: 403 for https://media.lectern.example/lectures/l-90112/master.m3u8",
     "learner_api.playback INFO issued signed cookies key_pair_id=K2JX7Q1ABCDE1 ttl=21600"],
    rep("web", "support-escalation"), "video-sync-cdn-key-group", deployment=dep("infra-cdn-tf-pr-1688", "pr-1688", 28), started=20)
out(56, "2025-07-29T16:00",
    "adding an origin recreated the key group and its public key; the signer kept the previous key pair id",
    "Same failure as lx-0017 and lx-0039, reached through learner-api. Syncing the signer fixed playback.",
    [("run runbook video-sync-cdn-key-group", S)], "sven.o", "video-sync-cdn-key-group")

# ---- 2025-08 ---------------------------------------------------------------
inc(57, "2025-08-12T14:50", "REL", "learner-api", "high",
    "learner-api 6.3.0: course outline endpoint 10x slower, DB load up",
    "6.3.0 went out at 13:50 UTC. GET /courses/{id}/outline p95 went from 180ms to 2.1s and the primary's CPU rose from 30% to 70%. "
    "pg_stat_statements shows a new query on lesson_progress doing a sequential scan, called once per outline request. No errors yet, but it's getting worse as EU afternoon traffic ramps up.",
    ["latency-spike", "cpu-saturation"],
    ["pg_stat_statements: calls=48211 mean_exec_time=1410ms query=SELECT ... FROM lesson_progress WHERE course_id = $1 AND updated_at > $2",
     "learner_api WARNING slow request GET /api/v3/courses/c-2214/outline 2310ms"],
    rep("web"), "helm-rollback-release", deployment=dep("learner-api-6.3.0", "6.3.0", 60), started=30)
out(57, "2025-08-12T15:25",
    "6.3.0's new 'recently updated' badge queried lesson_progress by course_id and updated_at with no index",
    "Going back to 6.2.4 brought latency and primary CPU back to normal; the index was added before 6.3.1.",
    [("run runbook helm-rollback-release (learner-api 6.3.0 -> 6.2.4)", S)], "tomas.b", "helm-rollback-release")

inc(58, "2025-08-26T13:40", "TURN", "live-classroom", "high",
    "[FIRING:1] TURNAllocationFailures live-classroom",
    "TURN allocate requests failing with 401/441 above 25%",
    ["join-failure"],
    ["sum(rate(coturn_allocation_errors_total{code=~\"401|441\"}[5m])) / sum(rate(coturn_allocation_requests_total[5m])) > 0.25 (value: 0.88)"],
    pagelabels("TURNAllocationFailures", "live"), "live-sync-turn-secret", started=10)
out(58, "2025-08-26T14:10",
    "the reloader annotation was lost when coturn moved to a new Helm chart; the monthly secret rotation again left coturn on the old secret",
    "Syncing the secret and reloading the relays fixed allocations; the annotation was restored in the chart.",
    [("run runbook live-sync-turn-secret", S)], "jonas.w", "live-sync-turn-secret")

# ---- 2025-09 ---------------------------------------------------------------
inc(59, "2025-09-02T18:10", "CDNSTALE", "video-delivery", "medium",
    "Updated welcome lecture: old recording plays, then the player dies",
    "Ops for the fall orientation course: the 'Welcome to Lectern' video was replaced at 15:00 UTC with a new recording. Some students get the old version and hit a fatal error around 4:30; others get the new one. "
    "Players that get the old version fetch a playlist the CDN serves from cache with an Age of several hours, and the segments it lists 404.",
    ["playback-error", "http-404", "stale-content"],
    ["x-cache: Hit from cloudfront, age: 11940, GET /lectures/l-100007/1080p/index.m3u8",
     "hls.js: fragLoadError status=404 url=/lectures/l-100007/1080p/seg_00054.ts"],
    rep("media"), "cdn-invalidate-lecture-paths", started=60)
out(59, "2025-09-02T18:40",
    "the replaced orientation lecture's old playlist was still cached at the edge",
    "Invalidating the lecture's paths fixed it. The orchestrator ticket for invalidating after replacements is still open.",
    [("run runbook cdn-invalidate-lecture-paths for l-100007", S)], "sven.o", "cdn-invalidate-lecture-paths")

inc(60, "2025-09-08T13:08", "PGCONN", "learner-api", "critical",
    "Fall term start: learner-api 5xx at 9am, PgBouncer clients waiting",
    "Fall term opened this morning; at 08:55 ET logins and course-page loads jumped to ~5x a normal Monday and ~10% of learner-api requests fail with query_wait_timeout. "
    "PgBouncer has 900+ clients waiting; Postgres is at 240 of 400 connections with every backend active on short queries, no idle-in-transaction sessions, primary CPU around 50%. No deploys since Thursday.",
    ["5xx", "pool-exhaustion", "latency-spike"],
    ["django.db.utils.OperationalError: query_wait_timeout",
     "pgbouncer: pool lectern/app cl_waiting=934 sv_active=200 sv_idle=0 maxwait=16s"],
    rep("web"), "pgbouncer-raise-pool-size", started=13, cond="surge")
out(60, "2025-09-08T13:50",
    "term-start surge on the app pool while Postgres had headroom",
    "Checked first that nothing was idle in transaction, then raised the app pool from 200 to 280; waits cleared and Postgres peaked at 320 connections.",
    [("run runbook pgbouncer-raise-pool-size (app 200 -> 280)", S)], "dana.r", "pgbouncer-raise-pool-size")

inc(61, "2025-09-10T16:30", "TRANSCODE", "learner-api", "medium",
    "Instructors: uploaded lectures not showing up for students",
    "learner-api on-call, from instructor support: lectures uploaded since about 11:00 UTC don't appear in the course outline for students, and the course editor still lists them as processing. "
    "learner-api hides lectures whose video status isn't READY, and ~140 lecture rows are stuck in PROCESSING. The MediaConvert jobs for a sample of them finished within 10 minutes of upload.",
    ["stuck-jobs", "stale-data"],
    ["learner_api.outline DEBUG hiding lecture l-101992: video_status=PROCESSING since 2025-09-10T11:04:31Z",
     "transcode-orchestrator: no job-state events consumed in 290m (queue media-job-state)"],
    rep("web", "support-escalation"), "mediaconvert-reconcile-job-states", started=45)
out(61, "2025-09-10T17:15",
    "the orchestrator's IAM role was recreated without sqs:ReceiveMessage on the job-state queue; events aged into the DLQ",
    "MediaConvert finished every job, but the orchestrator could not read the completion events. The policy was fixed, finished jobs were recorded from MediaConvert and the DLQ redriven.",
    [("restore sqs:ReceiveMessage on the orchestrator role", S),
     ("run runbook mediaconvert-reconcile-job-states", S)], "mika.t", "mediaconvert-reconcile-job-states")

inc(62, "2025-09-16T14:04", "SFU", "live-classroom", "high",
    "[FIRING:1] SFUNodeCPUHigh live-classroom",
    "SFU pod CPU above 85% of its limit for 10 minutes",
    [],
    ["max by (pod) (rate(container_cpu_usage_seconds_total{namespace=\"live\",container=\"sfu\"}[2m])) / max by (pod) (kube_pod_container_resource_limits{namespace=\"live\",container=\"sfu\",resource=\"cpu\"}) > 0.85 (value: 0.99)"],
    pagelabels("SFUNodeCPUHigh", "live", "warning", pod="sfu-7"), "live-scale-sfu-pool", started=12)
out(62, "2025-09-16T14:50",
    "fall term's first large live lectures outgrew the summer-sized SFU pool",
    "The pool had been shrunk to 8 for the summer. Raising it to 16 spread the rooms out.",
    [("run runbook live-scale-sfu-pool (8 -> 16)", S)], "jonas.w", "live-scale-sfu-pool")

inc(63, "2025-09-23T17:48", "SEARCHHEAP", "course-search", "high",
    "[FIRING:1] CourseSearchErrorRate course-search",
    "course-search 5xx ratio above 5% for 10 minutes",
    ["5xx"],
    ["sum(rate(http_requests_total{service=\"course-search\",code=~\"5..\"}[5m])) / sum(rate(http_requests_total{service=\"course-search\"}[5m])) > 0.05 (value: 0.09)"],
    pagelabels("CourseSearchErrorRate", "discovery"), "search-clear-fielddata-cache", started=12)
out(63, "2025-09-23T19:05",
    "a new 'sort by instructor' option sorted on the text field instructor.name and loaded its fielddata",
    "Same heap pressure from fielddata, on a new field. Clearing fielddata and pointing the sort at the keyword subfield fixed it.",
    [("run runbook search-clear-fielddata-cache", S)], "rui.c", "search-clear-fielddata-cache")

inc(64, "2025-09-23T18:12", "SEARCHHEAP", "course-search", "high",
    "Catalog search failing for a lot of users again",
    "Support relay: since ~17:40 UTC students browsing the fall catalog get 'Search is temporarily unavailable' on maybe one in ten searches, mostly when sorting. "
    "course-search logs show the OpenSearch domain rejecting queries with a circuit breaker error.",
    ["5xx", "circuit-breaker"],
    ["opensearchpy.exceptions.TransportError: TransportError(429, 'circuit_breaking_exception', '[parent] Data too large, data for [<http_request>] would be [16.0gb], which is larger than the limit of [15.9gb]')"],
    rep("discovery", "support-escalation"), "search-clear-fielddata-cache", started=30)
# no outcome: closed as a duplicate of lx-0063

# ---- 2025-10 ---------------------------------------------------------------
inc(65, "2025-10-07T14:25", "REPLAG", "quiz-service", "high",
    "Students see their quiz as not started after submitting it",
    "Several sections report that after submitting a quiz the course page still shows 'Not started' and offers another attempt; a couple of students started a second attempt. "
    "quiz-service reads attempt status from the replicas. pg-replica-1 is 9 minutes behind and its replay has been waiting on a conflicting query; pg-replica-2 is current. Primary and quiz-service look healthy, last deploy was last week.",
    ["stale-data", "replica-lag"],
    ["quiz_service.attempts INFO attempt status read from replica pg-replica-1: IN_PROGRESS (primary: SUBMITTED)",
     "LOG:  recovery still waiting after 540011.052 ms: recovery conflict on snapshot"],
    rep("assessment"), "pg-cancel-replica-conflicting-queries", started=25)
out(65, "2025-10-07T15:00",
    "an accreditation report ran on pg-replica-1 from a role that still had the unlimited standby setting",
    "Cancelling the report let replay catch up; the attempts that were started twice were merged by support.",
    [("run runbook pg-cancel-replica-conflicting-queries on pg-replica-1", S)], "dana.r", "pg-cancel-replica-conflicting-queries")

inc(66, "2025-10-21T15:40", "CDNSTALE", "learner-api", "medium",
    "Lecture page player errors on the redone Week 7 lectures",
    "From the PHYS 150 instructor: the three Week 7 lectures were re-exported with corrected slides yesterday evening. Students opening them from the course page get part of the way in and then the player shows a network error; "
    "one student sent a HAR where the playlist comes back from cache and the segment it names is missing.",
    ["playback-error", "http-404"],
    ["player_beacon event=fatal code=MEDIA_ERR_NETWORK lecture=l-118420 status=404",
     "x-cache: Hit from cloudfront, age: 72110, GET /lectures/l-118420/720p/index.m3u8"],
    rep("web", "support-escalation"), "cdn-invalidate-lecture-paths", started=80)
# no outcome: still open at the end of the history

# ---------------------------------------------------------------- migrations, contradictions
MIGRATIONS = [
    dict(name="video-transcoder-ffmpeg-to-mediaconvert", at="2025-03-08T06:00", fams={"TRANSCODE"}, spec={
        "targetService": "video-transcoder", "migrationDate": "2025-03-08",
        "oldArch": "Self-run FFmpeg workers on Kubernetes spot nodes consuming the RabbitMQ queue transcode.jobs (vhost media)",
        "newArch": "AWS Elemental MediaConvert jobs submitted by transcode-orchestrator; job-state events arrive through EventBridge and the SQS queue media-job-state",
        "impactedRunbooks": ["transcoder-requeue-stalled-jobs", "transcoder-scale-ffmpeg-workers"],
        "impactedFixKeywords": ["close stale consumer channels", "transcode.jobs", "ffmpeg-worker", "maxReplicaCount ffmpeg"],
        "confidenceDeduction": 30}),
    dict(name="search-cluster-eck-to-opensearch-service", at="2025-06-14T05:00", fams={"SEARCHHEAP"}, spec={
        "targetService": "search-cluster", "migrationDate": "2025-06-14",
        "oldArch": "Elasticsearch 7.17 run by ECK in the search namespace (3 data pods, 3 master pods)",
        "newArch": "Amazon OpenSearch Service 2.13 domain lectern-catalog (3 data nodes, dedicated masters, no pod access)",
        "impactedRunbooks": ["es-eck-restart-data-pod"],
        "impactedFixKeywords": ["delete pod es-data", "kubectl delete pod", "cycle data pod"],
        "confidenceDeduction": 25}),
]

CONTRA_PG = {
    "topic": "postgres connection exhaustion behind PgBouncer",
    "memories": ["lx-0002", "lx-0016"],
    "claims": [
        {"memory": "lx-0002", "claim": "raise the PgBouncer pool size; Postgres had connection and CPU headroom and the waits cleared"},
        {"memory": "lx-0016", "claim": "raising the pool made it worse (Postgres hit max_connections); ending sessions idle in transaction fixed it"},
    ],
    "resolution": {"state": "open"},
}
CONTRA_PG_DONE = dict(CONTRA_PG, memories=["lx-0002", "lx-0016", "lx-0023", "lx-0031"], claims=CONTRA_PG["claims"] + [
    {"memory": "lx-0023", "claim": "raising the pool cleared an exam-open launch surge"},
    {"memory": "lx-0031", "claim": "ending idle-in-transaction sessions cleared a full pool on an ordinary-traffic day"},
], resolution={"state": "reconciled", "note":
    "Both fixes hold under different conditions. If pg_stat_activity shows many sessions of one role 'idle in transaction' for minutes while traffic is ordinary, "
    "end them and cap idle_in_transaction_session_timeout (pg-terminate-idle-in-transaction); never raise the pool then. If traffic is a surge, every backend is active on "
    "short queries, nothing is idle in transaction and Postgres has connection and CPU headroom, raise the pool (pgbouncer-raise-pool-size). A saturated primary (one runaway query) is neither."})

CONTRA_GR = {
    "topic": "autograder queue backlog",
    "memories": ["lx-0007", "lx-0018"],
    "claims": [
        {"memory": "lx-0007", "claim": "raise the grader worker ceiling; the backlog cleared in 40 minutes"},
        {"memory": "lx-0018", "claim": "more workers made it worse; stopping sandboxes stuck at the wall-clock limit and capping the assignment's limit fixed it"},
    ],
    "resolution": {"state": "open"},
}
CONTRA_GR_DONE = dict(CONTRA_GR, memories=["lx-0007", "lx-0018", "lx-0024", "lx-0033"], claims=CONTRA_GR["claims"] + [
    {"memory": "lx-0024", "claim": "raising the ceiling cleared a deadline surge with normal job durations"},
    {"memory": "lx-0033", "claim": "stopping runaway sandboxes cleared a backlog at normal submission rate"},
], resolution={"state": "reconciled", "note":
    "Both hold. A deadline surge (submission rate several times normal, p95 job time normal, no sandbox at the limit) needs a higher worker ceiling (grading-scale-workers). "
    "A backlog at normal submission rate with sandboxes running to the 600s limit needs the runaway sandboxes stopped and the assignment capped (grading-kill-runaway-sandboxes); "
    "more workers only pick up the same looping submissions. grading-scale-workers revision 2 checks this before it runs."})


def apply_kind(at, kind, name, spec, order=-1):
    add(ts(at), {"type": "apply", "object": {"apiVersion": API, "kind": kind,
                                             "metadata": {"name": name}, "spec": spec}}, order=order)


# ---------------------------------------------------------------- catalog timeline
CATALOG = [  # (at, runbook name)
    ("2024-09-01T00:00", "helm-rollback-release"),
    ("2024-09-01T00:00", "k8s-rollout-restart"),
    ("2024-09-01T00:00", "video-sync-cdn-key-group"),
    ("2024-09-01T00:00", "transcoder-requeue-stalled-jobs"),
    ("2024-09-01T00:00", "transcoder-scale-ffmpeg-workers"),
    ("2024-09-01T00:00", "pgbouncer-raise-pool-size"),
    ("2024-09-01T00:00", "grading-scale-workers"),
    ("2024-09-01T00:00", "live-scale-sfu-pool"),
    ("2024-09-18T10:00", "cdn-invalidate-lecture-paths"),       # after lx-0003
    ("2024-09-24T10:00", "sso-refresh-idp-metadata"),           # after lx-0004
    ("2024-10-14T10:00", "lti-refresh-platform-keyset"),        # after lx-0009
    ("2024-10-17T10:00", "es-eck-restart-data-pod"),            # after lx-0010
    ("2024-10-22T10:00", "rabbitmq-drain-backlogged-queue"),    # after lx-0011
    ("2024-10-28T10:00", "pg-cancel-replica-conflicting-queries"),  # after lx-0012
    ("2024-11-04T10:00", "live-sync-turn-secret"),              # after lx-0014
    ("2024-11-12T10:00", "pg-terminate-idle-in-transaction"),   # after lx-0016
    ("2024-11-20T10:00", "grading-kill-runaway-sandboxes"),     # after lx-0018
    ("2025-03-05T10:00", "mediaconvert-reconcile-job-states"),  # ahead of the transcoder move
    ("2025-06-11T10:00", "search-clear-fielddata-cache"),       # ahead of the search move
]


def build():
    topology("2024-09-01T00:00", TOPO_V1, "initial topology")
    for at, name in CATALOG:
        apply_runbook(at, name)
    apply_runbook("2025-01-29T11:00", "grading-scale-workers", RB_GRADING_V2, rev=2)
    apply_kind("2024-11-12T10:05", "Contradiction", "postgres-connection-exhaustion", CONTRA_PG)
    apply_kind("2025-01-21T10:00", "Contradiction", "postgres-connection-exhaustion", CONTRA_PG_DONE)
    apply_kind("2024-11-20T10:05", "Contradiction", "grading-queue-backlog", CONTRA_GR)
    apply_kind("2025-01-29T11:05", "Contradiction", "grading-queue-backlog", CONTRA_GR_DONE)
    for m in MIGRATIONS:
        apply_kind(m["at"], "ArchitectureMigration", m["name"], m["spec"])
    topology("2025-03-08T06:05", TOPO_V2, "video-transcoder no longer consumes RabbitMQ (MediaConvert + SQS)")

    # catalog at time t
    def catalog_at(t):
        names = {n for at, n in CATALOG if ts(at) <= t}
        return names

    runbook_names = set(RUNBOOKS)
    fail_re = re.compile(r"runbook ([a-z0-9-]+)")
    forbidden = ["runbook", "rollback", "roll back", "revert", "invalidat", "requeue", "restart", "purge",
                 "drain", "reconcil", "refresh", "terminat", "cancel", "shovel"]

    problems = []
    for i, x in enumerate(INCIDENTS):
        t = x["at"]
        cat = catalog_at(t)
        prior = [y for y in INCIDENTS[:i] if y["fam"] == x["fam"] and y["name"] in OUTCOMES
                 and OUTCOMES[y["name"]]["at"] < t]
        precedents = [y["name"] for y in sorted(prior, key=lambda y: OUTCOMES[y["name"]]["at"], reverse=True)]
        unsafe = []
        for m in MIGRATIONS:
            if x["fam"] in m["fams"] and ts(m["at"]) <= t:
                unsafe += m["spec"]["impactedRunbooks"]
        for y in prior:
            for text, result in OUTCOMES[y["name"]]["actions"]:
                mm = fail_re.search(text)
                if result == F and mm and mm.group(1) != x["runbook"]:
                    unsafe.append(mm.group(1))
        unsafe += x["extra_unsafe"]
        unsafe = sorted(set(unsafe))
        for u in unsafe + ([x["runbook"]] if x["runbook"] else []):
            if u not in cat:
                problems.append(f"{x['name']}: {u} not in catalog")
        if x["runbook"] in unsafe:
            problems.append(f"{x['name']}: right runbook listed unsafe")
        text = (x["title"] + " " + x["description"]).lower()
        for w in forbidden:
            if w in text:
                problems.append(f"{x['name']}: text contains '{w}'")
        for s in x["symptoms"]:
            if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", s):
                problems.append(f"{x['name']}: bad tag {s}")
        for e in x["errors"]:
            for rb in runbook_names:
                if rb in e:
                    problems.append(f"{x['name']}: error line names runbook {rb}")
        spec = {"service": x["service"], "severity": x["severity"], "title": x["title"],
                "description": x["description"], "symptoms": x["symptoms"],
                "errorSignatures": x["errors"], "startedAt": iso(t - timedelta(minutes=x["started"])),
                "labels": x["labels"]}
        if x["deployment"]:
            spec["deployment"] = x["deployment"]
        x["truth"] = {"precedents": precedents, "runbook": x["runbook"], "novel": not precedents,
                      "unsafeRunbooks": unsafe}
        add(t, {"type": "incident", "object": {"apiVersion": API, "kind": "Incident",
                                               "metadata": {"name": x["name"]}, "spec": spec},
                "truth": x["truth"]})
        o = OUTCOMES.get(x["name"])
        if o:
            assert o["at"] > t, x["name"]
            if o["runbook"]:
                assert o["runbook"] in catalog_at(o["at"]), (x["name"], o["runbook"])
            for text, _ in o["actions"]:
                mm = fail_re.search(text)
                if mm:
                    assert mm.group(1) in catalog_at(o["at"]), (x["name"], mm.group(1))
            res = {"rootCause": o["root"], "summary": o["summary"]}
            if o["runbook"]:
                res["runbook"] = o["runbook"]
            res["actions"] = [{"action": a, "result": r} for a, r in o["actions"]]
            res["confirmedBy"] = o["by"]
            add(o["at"], {"type": "outcome", "incident": x["name"], "resolution": res}, order=1)

    if problems:
        raise SystemExit("\n".join(problems))

    events.sort(key=lambda e: (e[0], e[1]))
    with OUT.open("w") as f:
        for at, _, ev in events:
            line = {"at": iso(at)}
            line.update(ev)
            f.write(json.dumps(line, ensure_ascii=False) + "\n")

    # summary for the README
    n = len(INCIDENTS)
    pages = sum("[FIRING" in x["title"] for x in INCIDENTS)
    novel = [x["name"] for x in INCIDENTS if x["truth"]["novel"]]
    print(f"{len(events)} events; {n} incidents ({pages} pages, {n - pages} reports); "
          f"{len(OUTCOMES)} outcomes; novel {len(novel)} ({100 * len(novel) / n:.1f}%): {' '.join(novel)}")
    print(f"runbooks {len(RUNBOOKS)}; with unsafe: {sum(bool(x['truth']['unsafeRunbooks']) for x in INCIDENTS)}; "
          f"runbook null: {sum(x['truth']['runbook'] is None for x in INCIDENTS)}")
    for x in INCIDENTS:
        tr = x["truth"]
        print(f"{x['name']} {x['at']:%Y-%m-%d} {x['fam']:<10} {x['service']:<20} rb={tr['runbook']} "
              f"prec={','.join(p[3:] for p in tr['precedents'])} unsafe={','.join(tr['unsafeRunbooks'])}")


if __name__ == "__main__":
    build()
