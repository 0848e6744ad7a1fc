-- Argo CD health of a recall.dev Incident, from its status conditions and lifecycle.
--   Progressing  not triaged yet (or the spec changed since), a plan's Jobs running,
--                a confirmed outcome on its way into memory (or waiting for the operator's run)
--   Suspended    a plan waits for a person: an Approval, or a stop someone asked for
--   Degraded     the spec is invalid, memory could not be reached, the plan failed,
--                memory holds another incident of this name (the outcome is not written)
--   Healthy      triaged (novel, advisory or actionable), the plan ran, or resolved
-- Argo CD runs it with gopher-lua (Lua 5.1): `obj` is the object, the result is returned.
local hs = {}
local function conditions(status)
  local byType = {}
  if status.conditions ~= nil then
    for _, c in ipairs(status.conditions) do
      if c.type ~= nil then byType[c.type] = c end
    end
  end
  return byType
end
local function said(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then return c.message end
  return fallback
end

local status = obj.status
if status == nil then
  hs.status = "Progressing"
  hs.message = "waiting for the operator to triage the incident"
  return hs
end
local c = conditions(status)
local generation = obj.metadata and obj.metadata.generation
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "the spec changed; waiting for the operator to triage it again"
  return hs
end

-- Resolved by a person: healthy once the outcome is in memory.
if obj.spec ~= nil and obj.spec.resolution ~= nil then
  if c.Resolved ~= nil and c.Resolved.status == "True" then
    hs.status = "Healthy"
    hs.message = said(c.Resolved, "resolved")
  elseif c.Resolved ~= nil and c.Resolved.reason == "NameTaken" then
    hs.status = "Degraded"
    hs.message = said(c.Resolved, "memory holds another incident of this name")
  elseif c.Resolved ~= nil and c.Resolved.reason == "MemoryRefused" then
    hs.status = "Degraded"
    hs.message = said(c.Resolved, "memory refused the outcome as written")
  elseif c.MemoryAvailable ~= nil and c.MemoryAvailable.status == "False" then
    hs.status = "Degraded"
    hs.message = said(c.MemoryAvailable, "the outcome waits for memory")
  else
    hs.status = "Progressing"
    hs.message = said(c.Resolved, "the outcome is being written into memory")
  end
  return hs
end

if c.Triaged ~= nil and c.Triaged.status == "False" then
  hs.status = "Degraded"
  hs.message = said(c.Triaged, "the incident could not be triaged")
  return hs
end

local execution = status.execution or {}
local state = execution.state
if state == "Failed" or state == "RolledBack" then
  hs.status = "Degraded"
  hs.message = "execution " .. state .. ": " .. (execution.reason or "see status.execution")
  return hs
end
if state == "Stopped" then
  hs.status = "Suspended"
  hs.message = "execution stopped: " .. (execution.reason or "by a person")
  return hs
end
if state == "Running" then
  local reason = execution.reason or ""
  if string.find(reason, "waiting for an Approval", 1, true) ~= nil
      or string.find(reason, "more distinct approvers", 1, true) ~= nil then
    hs.status = "Suspended"
  else
    hs.status = "Progressing"
  end
  hs.message = "execution Running: " .. reason
  return hs
end
if state == "Succeeded" then
  hs.status = "Healthy"
  hs.message = "the approved plan ran: " .. (execution.reason or "every step succeeded")
  return hs
end

if c.MemoryAvailable ~= nil and c.MemoryAvailable.status == "False" then
  hs.status = "Degraded"
  hs.message = said(c.MemoryAvailable, "memory could not be reached")
  return hs
end
if c.AwaitingApproval ~= nil and c.AwaitingApproval.status == "True" then
  hs.status = "Suspended"
  hs.message = said(c.AwaitingApproval, "the plan waits for an Approval")
  return hs
end
if c.Triaged ~= nil and c.Triaged.status == "True" then
  hs.status = "Healthy"
  hs.message = said(c.Triaged, "triaged")
  return hs
end
hs.status = "Progressing"
hs.message = "waiting for the operator to triage the incident"
return hs
