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
{{- define "recall.executorNamespaces" -}}
{{- $list := list .Release.Namespace -}}
{{- $extra := .Values.executor.namespaces -}}
{{- if and (not $extra) (not .Values.watch.allNamespaces) -}}
{{- $extra = .Values.watch.namespaces -}}
{{- end -}}
{{- range $extra -}}
{{- $list = append $list . -}}
{{- end -}}
{{- $list | uniq | toJson -}}
{{- end -}}

{{/* `recall` arguments of the operator container. */}}
{{- define "recall.args" -}}
{{- $v := .Values -}}
{{- $args := list "run" -}}
{{- if $v.watch.allNamespaces -}}
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
{{- end -}}
{{- $args = concat $args (list "--metrics-port" ($v.metrics.port | toString)) -}}
{{- if gt (int $v.replicas) 1 -}}
{{- $args = concat $args (list "--peering" $v.peering.name) -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}
