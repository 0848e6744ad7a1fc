"""kwok's Stage objects: how the fake kubelet moves Nodes and Pods through their lives.

A scheduled Pod becomes Running; a Pod owned by a Job then Succeeds, unless its
labels carry ``recall.dev/simulate=fail``, in which case it Fails (exit code 1).
The pod annotation ``recall.dev/simulate-duration`` (a Go duration such as
``"5s"``) sets how long such a Pod stays Running (default 1s). Each container
reports an ``imageID`` as a kubelet does after a pull: its image, then a
digest (here the SHA-256 of the image's name, so a tag never moves).
"""

from __future__ import annotations

KWOK_STAGES = r"""
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: recall-node-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - type: {{ .type | Quote }}
        status: {{ .status | Quote }}
        reason: {{ .reason | Quote }}
        message: {{ .message | Quote }}
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      {{ end }}
      addresses:
      - type: InternalIP
        address: {{ NodeIP | Quote }}
      - type: Hostname
        address: {{ NodeName | Quote }}
      allocatable:
        cpu: "64"
        memory: 256Gi
        pods: "1000"
      capacity:
        cpu: "64"
        memory: 256Gi
        pods: "1000"
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
        kernelVersion: {{ printf "kwok-%s" Version | Quote }}
        osImage: kwok
        machineID: ""
        systemUUID: ""
        bootID: ""
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: recall-pod-running
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ["Pending"]
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - type: Initialized
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: Ready
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: {{ printf "%s@sha256:%s" .image (sha256sum .image) | Quote }}
        ready: true
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            reason: Completed
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      {{ with NodeIPsWith .spec.nodeName }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      {{ with PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      podIP: {{ index . 0 | Quote }}
      podIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
@JOB_POD_STAGES@---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: recall-pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
  next:
    delete: true
"""


# A Job's Pod finishes after a second (or the recall.dev/simulate-duration
# annotation): it fails when its Job carries recall.dev/simulate=fail, and
# succeeds otherwise. One template serves both, so they cannot drift apart.
_JOB_POD_STAGE = r"""---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: recall-job-pod-@OUTCOME@
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ["Running"]
    - key: '.metadata.ownerReferences.[].kind'
      operator: In
      values: ["Job"]
    - key: '.metadata.labels["recall.dev/simulate"]'
      operator: @SIMULATE_OP@
      values: ["fail"]
  delay:
    durationMilliseconds: 1000
    durationFrom:
      expressionFrom: '.metadata.annotations["recall.dev/simulate-duration"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $started := or .status.startTime $now }}
      conditions:
      - type: Ready
        status: "False"
        reason: @POD_REASON@
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "False"
        reason: @POD_REASON@
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        imageID: {{ printf "%s@sha256:%s" .image (sha256sum .image) | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: @EXIT_CODE@
            reason: @CONTAINER_REASON@@MESSAGE@
            startedAt: {{ $started | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: @PHASE@
"""


def _job_pod_stage(outcome: str, simulate_op: str, pod_reason: str, exit_code: int, container_reason: str,
                   phase: str, message: str = "") -> str:
    fields = {
        "@OUTCOME@": outcome, "@SIMULATE_OP@": simulate_op, "@POD_REASON@": pod_reason,
        "@EXIT_CODE@": str(exit_code), "@CONTAINER_REASON@": container_reason, "@PHASE@": phase,
        "@MESSAGE@": f'\n            message: "{message}"' if message else "",
    }
    text = _JOB_POD_STAGE
    for key, value in fields.items():
        text = text.replace(key, value)
    return text


KWOK_STAGES = KWOK_STAGES.replace(
    "@JOB_POD_STAGES@",
    _job_pod_stage("succeeded", "NotIn", "PodCompleted", 0, "Completed", "Succeeded")
    + _job_pod_stage("failed", "In", "PodFailed", 1, "Error", "Failed",
                     "failure simulated by the recall.dev/simulate=fail label"),
)
