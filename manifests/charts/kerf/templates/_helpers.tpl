{{/* Chart name, truncated to the 63 characters of a label value. */}}
{{- define "kerf.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every object name: the release name when it already contains the chart name ("kerf"). */}}
{{- define "kerf.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kerf.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object; call with (dict "root" $ "component" "operator"). */}}
{{- define "kerf.labels" -}}
helm.sh/chart: {{ include "kerf.chart" .root }}
{{ include "kerf.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: kerf
{{- with .root.Values.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "kerf.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kerf.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "kerf.operator.fullname" -}}
{{- printf "%s-operator" (include "kerf.fullname" .) }}
{{- end }}

{{- define "kerf.webhook.fullname" -}}
{{- printf "%s-webhook" (include "kerf.fullname" .) }}
{{- end }}

{{- define "kerf.operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kerf.operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The operator's username at the apiserver, skipped by the webhook (its writes are metadata and status). */}}
{{- define "kerf.operator.username" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "kerf.operator.serviceAccountName" .) }}
{{- end }}

{{- define "kerf.image" -}}
{{- $image := .Values.controller.image }}
{{- if $image.digest }}
{{- printf "%s@%s" $image.repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{/*
FEATURE_GATES from settings.featureGates: spotToSpotConsolidation: true → SpotToSpotConsolidation=true, sorted by
name, as Karpenter's chart renders its gates.
*/}}
{{- define "kerf.featureGates" -}}
{{- $gates := list }}
{{- range $name, $on := .Values.settings.featureGates }}
{{- if not (kindIs "bool" $on) }}
{{- fail (printf "settings.featureGates.%s must be true or false, not %v" $name $on) }}
{{- end }}
{{- $gates = append $gates (printf "%s%s=%t" (upper (substr 0 1 $name)) (substr 1 -1 $name) $on) }}
{{- end }}
{{- join "," $gates }}
{{- end }}

{{/*
Affinity with the selector filled in: a pod (anti-)affinity term without a labelSelector selects the component's
own pods, as in Karpenter's chart. Call with (dict "root" $ "component" "operator" "affinity" $affinity).
*/}}
{{- define "kerf.affinity" -}}
{{- $affinity := deepCopy .affinity }}
{{- $selector := include "kerf.selectorLabels" . | fromYaml }}
{{- range $kind := list "podAffinity" "podAntiAffinity" }}
{{- with (get $affinity $kind) }}
{{- range $term := (default list .requiredDuringSchedulingIgnoredDuringExecution) }}
{{- if not $term.labelSelector }}{{ $_ := set $term "labelSelector" (dict "matchLabels" $selector) }}{{ end }}
{{- end }}
{{- range $weighted := (default list .preferredDuringSchedulingIgnoredDuringExecution) }}
{{- if not $weighted.podAffinityTerm.labelSelector }}{{ $_ := set $weighted.podAffinityTerm "labelSelector" (dict "matchLabels" $selector) }}{{ end }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/* Topology spread constraints with the same selector defaulting. */}}
{{- define "kerf.topologySpreadConstraints" -}}
{{- $selector := include "kerf.selectorLabels" . | fromYaml }}
{{- $out := list }}
{{- range .constraints }}
{{- $c := deepCopy . }}
{{- if not $c.labelSelector }}{{ $_ := set $c "labelSelector" (dict "matchLabels" $selector) }}{{ end }}
{{- $out = append $out $c }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* Fails on a policy setting YAML turned into a boolean (unquoted off/on/yes/no), which kerf would reject at start. */}}
{{- define "kerf.policiesYaml" -}}
{{- range $policy, $setting := .Values.policies }}
{{- if kindIs "bool" $setting }}
{{- fail (printf "policies.%s is the boolean %t: quote it (\"off\", \"deny\" or \"warn\"); unquoted off is YAML for false" $policy $setting) }}
{{- end }}
{{- end }}
{{- toYaml (dict "mode" (.Values.policyMode | default "enforce") "policies" .Values.policies) }}
{{- end }}

{{/*
Callers the webhook never checks, as a JSON array: webhook.skipUsernames and kerf's own operator (only when it is
installed: with replicas 0 no one may bypass the webhook by creating a ServiceAccount of that name).
*/}}
{{- define "kerf.webhook.skipUsernames" -}}
{{- $users := default list .Values.webhook.skipUsernames }}
{{- if include "kerf.operator.enabled" . }}{{ $users = concat $users (list (include "kerf.operator.username" .)) }}{{ end }}
{{- range $users }}
{{- if not (regexMatch "^[A-Za-z0-9:._@-]+$" .) }}
{{- fail (printf "webhook.skipUsernames: %q is not a Kubernetes username (letters, digits and :._@- only)" .) }}
{{- end }}
{{- end }}
{{- toJson (uniq $users) }}
{{- end }}

{{/* A list of strings as CEL string literals: 'a', 'b' (the values are checked to hold no quote). */}}
{{- define "kerf.celStrings" -}}
{{- $quoted := list }}
{{- range . }}{{ $quoted = append $quoted (printf "'%s'" .) }}{{ end }}
{{- join ", " $quoted }}
{{- end }}

{{/* "true" when the webhook reads the cluster's Karpenter CRDs (webhook.karpenterApi.source cluster). */}}
{{- define "kerf.webhook.readsCrds" -}}
{{- $source := .Values.webhook.karpenterApi.source }}
{{- if not (has $source (list "cluster" "bundled")) }}
{{- fail (printf "webhook.karpenterApi.source must be cluster or bundled, not %v" $source) }}
{{- end }}
{{- eq $source "cluster" }}
{{- end }}

{{/* "true" when the operator is installed (replicas above 0), else "": replicas 0 is a webhook-only install. */}}
{{- define "kerf.operator.enabled" -}}
{{- if gt (int .Values.replicas) 0 }}true{{ end }}
{{- end }}

{{/*
A container securityContext without empty settings: Karpenter's values carry appArmorProfile, seLinuxOptions and
seccompProfile as {}, which the API server would refuse (each requires its type).
*/}}
{{- define "kerf.securityContext" -}}
{{- $out := dict }}
{{- range $key, $value := . }}
{{- if or (kindIs "bool" $value) (kindIs "float64" $value) (kindIs "int64" $value) (kindIs "int" $value) $value }}{{ $_ := set $out $key $value }}{{ end }}
{{- end }}
{{- if $out }}{{ toYaml $out }}{{ end }}
{{- end }}
