{{/* The name of the operator's Deployment, Service and claim. */}}
{{- define "recall.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "recall.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: recall-operator
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "recall.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Cluster-scoped names carry the release namespace unless it is the default one. */}}
{{- define "recall.clusterName" -}}
{{- $base := index . 0 -}}
{{- $ctx := index . 1 -}}
{{- if eq $ctx.Release.Namespace "recall-system" -}}
{{- $base -}}
{{- else -}}
{{- printf "%s-%s" $base $ctx.Release.Namespace | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "recall.operatorUser" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace .Values.serviceAccount.name -}}
{{- end -}}

{{/* Namespaces that get the runbook executor's ServiceAccount. */}}
{{/* Steps run in the incident's namespace: every watched one needs the account, whatever else is listed. */}}
{{- define "recall.executorNamespaces" -}}
{{- $list := list .Release.Namespace -}}
{{- if not .Values.watch.allNamespaces -}}
{{- $list = concat $list .Values.watch.namespaces -}}
{{- end -}}
{{- $list = concat $list (.Values.executor.namespaces | default list) -}}
{{- $list | uniq | toJson -}}
{{- end -}}

{{/* The namespaces an admission binding of this release covers: the watched ones. Shards each bind
their own, so one release's policies never judge another release's operator. */}}
{{- define "recall.watchedSelector" -}}
{{- if .Values.watch.allNamespaces -}}
namespaceSelector: {}
{{- else -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: In
      values:
        {{- toYaml .Values.watch.namespaces | nindent 8 }}
{{- end -}}
{{- end -}}

{{/* What the operator reads of the cluster itself, wherever it watches. */}}
{{- define "recall.operatorClusterRules" -}}
# Kopf scans CRDs and namespaces to know what to watch.
- apiGroups: ["apiextensions.k8s.io"]
  resources: [customresourcedefinitions]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [list, watch]
# The cluster's identity on a shared Hindsight bank, when memory.hindsight.cluster is unset.
- apiGroups: [""]
  resources: [namespaces]
  resourceNames: [kube-system]
  verbs: [get]
# Kopf peering, when several replicas run with --peering (kopf.dev CRDs).
- apiGroups: ["kopf.dev"]
  resources: [clusterkopfpeerings, kopfpeerings]
  verbs: [get, list, watch, patch]
{{- end -}}

{{/* `recall` arguments of the operator container. */}}
{{- define "recall.args" -}}
{{- $v := .Values -}}
{{- $args := list "run" -}}
{{- if $v.watch.allNamespaces -}}
{{- if $v.watch.namespaces -}}
{{- fail "watch.namespaces is set but watch.allNamespaces is true, which watches every namespace: set watch.allNamespaces=false to watch only those, or leave watch.namespaces empty" -}}
{{- end -}}
{{- $args = append $args "--all-namespaces" -}}
{{- else -}}
{{- if not $v.watch.namespaces -}}
{{- fail "watch.namespaces must name at least one namespace when watch.allNamespaces is false" -}}
{{- end -}}
{{- range $v.watch.namespaces -}}
{{- $args = concat $args (list "--namespace" .) -}}
{{- end -}}
{{- end -}}
{{- $args = concat $args (list "--memory" $v.memory.backend) -}}
{{- if eq $v.memory.backend "embedded" -}}
{{- $args = concat $args (list "--memory-path" $v.memory.path) -}}
{{- else -}}
{{- if not $v.memory.hindsight.url -}}
{{- fail "memory.hindsight.url is required when memory.backend is hindsight" -}}
{{- end -}}
{{- $args = concat $args (list "--hindsight-url" $v.memory.hindsight.url) -}}
{{- end -}}
{{- if $v.bridge.enabled -}}
{{- $args = concat $args (list "--bridge-port" ($v.bridge.port | toString)) -}}
{{- $bridgeNs := $v.bridge.namespace | default (ternary .Release.Namespace (first (default (list "") $v.watch.namespaces)) $v.watch.allNamespaces) -}}
{{- if not (or $v.watch.allNamespaces (has $bridgeNs $v.watch.namespaces)) -}}
{{- fail (printf "bridge.namespace %s is not watched: add it to watch.namespaces" $bridgeNs) -}}
{{- end -}}
{{- $args = concat $args (list "--bridge-namespace" $bridgeNs) -}}
{{- /* Every address, so the Service reaches it; the token keeps it closed. */ -}}
{{- $args = concat $args (list "--bridge-host" "0.0.0.0" "--bridge-token-file" (include "recall.bridgeTokenPath" .)) -}}
{{- end -}}
{{- $args = concat $args (list "--metrics-port" ($v.metrics.port | toString)) -}}
{{- if $v.panel.enabled -}}
{{- /* Loopback only: the panel reads with the operator's identity; kubectl port-forward reaches it. */ -}}
{{- $args = concat $args (list "--panel-port" ($v.panel.port | toString)) -}}
{{- end -}}
{{- if gt (int $v.replicas) 1 -}}
{{- $args = concat $args (list "--peering" $v.peering.name) -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}

{{/* Where the bridge's bearer token is mounted, and the Secret it comes from. */}}
{{- define "recall.bridgeTokenDir" -}}/etc/recall/bridge{{- end -}}
{{- define "recall.bridgeTokenPath" -}}{{ include "recall.bridgeTokenDir" . }}/token{{- end -}}
{{- define "recall.hindsightSecretName" -}}
{{- .Values.memory.hindsight.credentials.secretName | default (printf "%s-hindsight" (include "recall.fullname" .)) -}}
{{- end -}}
{{- define "recall.statusKeySecretName" -}}
{{- .Values.statusKey.secretName | default (printf "%s-status-key" (include "recall.fullname" .)) -}}
{{- end -}}
{{- define "recall.bridgeSecretName" -}}
{{- .Values.bridge.auth.secretName | default (printf "%s-bridge-token" (include "recall.fullname" .)) -}}
{{- end -}}

{{/* The operator image: by digest when one is given, else by tag. */}}
{{- define "recall.image" -}}
{{- $i := .Values.image -}}
{{- if $i.digest -}}
{{- printf "%s@%s" $i.repository $i.digest -}}
{{- else -}}
{{- printf "%s:%s" $i.repository ($i.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
Orders the chart refuses at template time rather than letting the operator
crash-loop on them: more approvers for a safer step than for a riskier one,
weights that do not add up to 1, several replicas on the one-writer store.
*/}}
{{- /* The operator container's environment (but extraEnv): a named template so that recall.validate can
refuse an extraEnv entry naming one of these, which would silently override the chart's own value. */ -}}
{{- define "recall.env" -}}
{{- $v := .Values -}}
{{- $w := $v.scoring.weights -}}
- name: POD_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: RECALL_MEMORY_BACKEND
  value: {{ $v.memory.backend | quote }}
{{- if eq $v.memory.backend "embedded" }}
- name: RECALL_MEMORY_PATH
  value: {{ $v.memory.path | quote }}
{{- end }}
{{- with $v.memory.hindsight.bank }}
- name: RECALL_HINDSIGHT_BANK
  value: {{ . | quote }}
{{- end }}
{{- if eq $v.memory.backend "hindsight" }}
- name: RECALL_HINDSIGHT_SCOPE
  value: {{ $v.memory.hindsight.scope | default "namespace" | quote }}
{{- with $v.memory.hindsight.cluster }}
- name: RECALL_CLUSTER
  value: {{ . | quote }}
{{- end }}
{{- end }}
- name: RECALL_NOVEL_BAR
  value: {{ $v.policy.novelBar | quote }}
- name: RECALL_ACTIONABLE_BAR
  value: {{ $v.policy.actionableBar | quote }}
- name: RECALL_AUTO_DRY_RUN
  value: {{ $v.policy.autoDryRun | quote }}
- name: RECALL_FOUR_EYES
  value: {{ $v.policy.fourEyes | quote }}
- name: RECALL_APPROVAL_EXPIRY_MINUTES
  value: {{ $v.policy.approvalExpiryMinutes | quote }}
{{- range $risk := list "low" "medium" "high" "critical" }}
- name: RECALL_APPROVERS_{{ upper $risk }}
  value: {{ index $v.policy.approvers $risk | toString | quote }}
{{- end }}
- name: RECALL_APPROVERS_BRIDGE
  value: {{ $v.policy.approvers.bridge | toString | quote }}
{{- range $term := list "lexical" "service" "symptoms" "signals" "runbook" "dna" }}
- name: RECALL_WEIGHT_{{ upper $term }}
  value: {{ index $w $term | toString | quote }}
{{- end }}
- name: RECALL_EXECUTOR_SERVICE_ACCOUNT
  value: {{ $v.executor.serviceAccountName | quote }}
# Without the default Secret, a key of the process (see values.yaml).
- name: RECALL_STATUS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "recall.statusKeySecretName" . }}
      key: {{ $v.statusKey.secretKey }}
      # A Secret named here is required: misspelt, each replica would seal with a key of its own.
      optional: {{ not $v.statusKey.secretName }}
{{- if eq $v.memory.backend "hindsight" }}
# Without the default Secret, memories are neither signed nor checked (the log says so).
- name: RECALL_HINDSIGHT_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "recall.hindsightSecretName" . }}
      key: {{ $v.memory.hindsight.credentials.signingKey }}
      # A Secret named here is required: misspelt, memories would silently go unsigned.
      optional: {{ not $v.memory.hindsight.credentials.secretName }}
# Optional: for a server that asks for an API key.
- name: RECALL_HINDSIGHT_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "recall.hindsightSecretName" . }}
      key: {{ $v.memory.hindsight.credentials.apiKey }}
      optional: true
{{- end }}
{{- end -}}

{{- define "recall.validate" -}}
{{- $v := .Values -}}
{{- if and (gt (int $v.replicas) 1) (eq $v.memory.backend "embedded") }}
{{- fail "replicas > 1 needs memory.backend=hindsight: the embedded SQLite store belongs to one pod" }}
{{- end }}
{{- $a := $v.policy.approvers }}
{{- $prev := 0 }}
{{- $prevName := "" }}
{{- range $risk := list "low" "medium" "high" "critical" }}
{{- $n := int (index $a $risk) }}
{{- if lt $n $prev }}
{{- fail (printf "policy.approvers.%s=%d is fewer than policy.approvers.%s=%d: a riskier step may not need fewer approvers" $risk $n $prevName $prev) }}
{{- end }}
{{- $prev = $n }}
{{- $prevName = $risk }}
{{- end }}
{{- if lt (int $v.policy.actionableBar) (int $v.policy.novelBar) }}
{{- fail (printf "policy.actionableBar=%v is under policy.novelBar=%v: a precedent too weak to count could run its fix" $v.policy.actionableBar $v.policy.novelBar) }}
{{- end }}
{{- $w := $v.scoring.weights }}
{{- range $term := list "lexical" "service" "symptoms" "signals" "runbook" "dna" }}
{{- $x := float64 (index $w $term) }}
{{- if or (lt $x 0.0) (gt $x 1.0) }}
{{- fail (printf "scoring.weights.%s must be within 0..1, not %v" $term (index $w $term)) }}
{{- end }}
{{- end }}
{{- $sum := addf $w.lexical $w.service $w.symptoms $w.signals $w.runbook $w.dna }}
{{- /* The operator's own tolerance (config.WEIGHT_SUM_TOLERANCE): thirds written as 0.3333 pass both. */ -}}
{{- if or (lt $sum 0.999) (gt $sum 1.001) }}
{{- fail (printf "scoring.weights must add up to 1, not %v" $sum) }}
{{- end }}
{{- /* Each server of the pod on a port of its own: a second one on a port taken stops the container. */ -}}
{{- $ports := dict }}
{{- range $what := list (list "metrics.port" $v.metrics.port true) (list "bridge.port" $v.bridge.port $v.bridge.enabled) (list "panel.port" $v.panel.port $v.panel.enabled) }}
{{- if index $what 2 }}
{{- $port := index $what 1 | toString }}
{{- if hasKey $ports $port }}
{{- fail (printf "%s=%s is the port of %s too: each server of the pod needs a port of its own" (index $what 0) $port (get $ports $port)) }}
{{- end }}
{{- $_ := set $ports $port (index $what 0) }}
{{- end }}
{{- end }}
{{- /* extraEnv naming a variable the chart sets would win over it (the later entry does) and get around the
checks above (four-eyes, the executor's account); one the chart gives as a flag would be ignored. */ -}}
{{- $chartEnv := dict }}
{{- range $e := (include "recall.env" . | fromYamlArray) }}
{{- $_ := set $chartEnv $e.name true }}
{{- end }}
{{- range $flagged := list "RECALL_MEMORY_BACKEND" "RECALL_MEMORY_PATH" "RECALL_HINDSIGHT_URL" }}
{{- $_ := set $chartEnv $flagged true }}
{{- end }}
{{- range $e := $v.extraEnv }}
{{- if hasKey $chartEnv $e.name }}
{{- fail (printf "extraEnv sets %s, which the chart sets from its values: set that value instead" $e.name) }}
{{- end }}
{{- end }}
{{- if eq $v.executor.serviceAccountName $v.serviceAccount.name }}
{{- fail (printf "executor.serviceAccountName %s is the operator's own account: steps would run with the operator's rights; name another" $v.executor.serviceAccountName) }}
{{- end }}
{{- /* The store's folder is the persistence volume's mount: not the root, nor where the chart mounts other things. */ -}}
{{- if eq $v.memory.backend "embedded" }}
{{- $dir := dir $v.memory.path }}
{{- if or (not (isAbs $v.memory.path)) (eq $dir "/") (eq $dir "/tmp") (hasPrefix "/etc/recall" $dir) (hasPrefix "/var/run/secrets" $dir) }}
{{- fail (printf "memory.path %s: its folder is mounted from the persistence volume, so it must be an absolute path in a folder of its own (not /, /tmp, /etc/recall or /var/run/secrets), such as /var/lib/recall/memory.sqlite3" $v.memory.path) }}
{{- end }}
{{- end }}
{{- end -}}
