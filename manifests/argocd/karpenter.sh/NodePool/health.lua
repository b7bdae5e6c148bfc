-- Argo CD health for karpenter.sh/NodePool as kerf (and Karpenter v1) report it.
-- Runs in argocd-cm without the Lua standard libraries: no string.*, only base functions and table.
-- Progressing: being deleted, no status yet, or any condition observed an older metadata.generation;
--   the EC2NodeClass is not ready yet (it reports the cause itself); a drift rollout is running or is
--   paused by the budget (RolloutBlocked: the NodePool's own budget doing its job, see the README).
-- Degraded: ValidationSucceeded=False (only a new spec fixes it) or NodeClassReady=False with reason
--   NodeClassNotFound (nothing creates the referenced EC2NodeClass but a person); Ready=False that no
--   dependent condition explains.
-- Healthy: Ready=True and no rollout running.
local hs = {}

local function condition(conditions, kind)
  for _, c in ipairs(conditions) do
    if c.type == kind then return c end
  end
  return nil
end

local function describe(c)
  local text = c.type .. "=" .. tostring(c.status)
  if c.reason ~= nil and c.reason ~= "" then text = text .. " (" .. c.reason .. ")" end
  if c.message ~= nil and c.message ~= "" then text = text .. ": " .. c.message end
  return text
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "terminating"
  return hs
end

local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then conditions = obj.status.conditions end
if #conditions == 0 then
  hs.status = "Progressing"
  hs.message = "waiting for the controller to report the NodePool's status"
  return hs
end

local generation = nil
if obj.metadata ~= nil then generation = obj.metadata.generation end
if generation ~= nil then
  for _, c in ipairs(conditions) do
    if c.observedGeneration ~= nil and c.observedGeneration < generation then
      hs.status = "Progressing"
      hs.message = "waiting for the controller to observe generation " .. generation .. " (" .. c.type
        .. " reflects generation " .. c.observedGeneration .. ")"
      return hs
    end
  end
end

local validation = condition(conditions, "ValidationSucceeded")
if validation ~= nil and validation.status == "False" then
  hs.status = "Degraded"
  hs.message = describe(validation)
  return hs
end

local ready = condition(conditions, "Ready")
if ready == nil or ready.status ~= "True" then
  local nodeClass = condition(conditions, "NodeClassReady")
  if nodeClass ~= nil and nodeClass.status == "False" then
    if nodeClass.reason == "NodeClassNotFound" then
      hs.status = "Degraded"
    else
      hs.status = "Progressing"
    end
    hs.message = describe(nodeClass)
    return hs
  end
  if ready ~= nil and ready.status == "False" then
    hs.status = "Degraded"
    hs.message = describe(ready)
    return hs
  end
  hs.status = "Progressing"
  hs.message = "waiting for the NodePool to become Ready"
  return hs
end

local drifted = condition(conditions, "Drifted")
if drifted ~= nil and drifted.status == "True" then
  hs.status = "Progressing"
  hs.message = drifted.message
  return hs
end

hs.status = "Healthy"
if drifted ~= nil and drifted.message ~= nil and drifted.message ~= "" then
  hs.message = drifted.message
else
  hs.message = "Ready"
end
return hs
