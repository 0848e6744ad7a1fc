-- Argo CD health of a recall.dev Runbook, from its status (its track record).
--   Healthy      no confirmed outcome yet, or the last one succeeded
--   Degraded     the last confirmed run failed, or the operator does not accept the Runbook (Accepted False)
--   Progressing  the spec changed and the operator has not looked at it yet
-- A Runbook has no paused state, so it is never Suspended.
-- Argo CD runs it with gopher-lua (Lua 5.1): `obj` is the object, the result is returned.
local hs = {status = "Healthy", message = "no confirmed outcome yet"}
local status = obj.status
if status == nil then
  return hs
end
local generation = obj.metadata and obj.metadata.generation
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "the spec changed; waiting for the operator"
  return hs
end
if status.conditions ~= nil then
  for _, c in ipairs(status.conditions) do
    if (c.type == "Accepted" or c.type == "Ready" or c.type == "Valid") and c.status == "False" then
      hs.status = "Degraded"
      hs.message = c.message or c.reason or (c.type .. " is False")
      return hs
    end
  end
end
local record = ""
if status.timesExecuted ~= nil then
  record = string.format("%d run(s), %d succeeded", status.timesExecuted, status.timesSucceeded or 0)
end
local last = status.lastOutcome
if last ~= nil and last.result == "failed" then
  hs.status = "Degraded"
  hs.message = "the last confirmed run failed (incident " .. (last.incident or "?") .. "); " .. record
  return hs
end
if last ~= nil then
  hs.message = "last confirmed run " .. (last.result or "?") .. "; " .. record
end
return hs
