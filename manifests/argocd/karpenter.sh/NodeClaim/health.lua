-- Argo CD health for karpenter.sh/NodeClaim as kerf (and Karpenter v1) report it. NodeClaims are not
-- in Git: Argo CD shows them under their NodePool (owner reference) without counting them in the
-- Application's health. Runs in argocd-cm without the Lua standard libraries (no string.*).
-- Progressing: being deleted ("terminating", with the disruption reason and the step reached), marked
--   for disruption, no status yet, a condition observed an older metadata.generation, or not yet
--   Initialized (the message names the furthest step: launched, registered, initialized).
-- Degraded: the launch failed (Launched reason LaunchFailed, or Launched=False), Registered=False or
--   Initialized=False, or Ready=False after initialization.
-- Healthy: Initialized and Ready.
local hs = {}

local function condition(conditions, kind)
  for _, c in ipairs(conditions) do
    if c.type == kind then return c end
  end
  return nil
end

local function isTrue(conditions, kind)
  local c = condition(conditions, kind)
  return c ~= nil and c.status == "True"
end

local function describe(c)
  local text = c.type .. "=" .. tostring(c.status)
  if c.reason ~= nil and c.reason ~= "" then text = text .. " (" .. c.reason .. ")" end
  if c.message ~= nil and c.message ~= "" then text = text .. ": " .. c.message end
  return text
end

local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then conditions = obj.status.conditions end
local disruption = condition(conditions, "DisruptionReason")

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  local message = "terminating"
  if disruption ~= nil and disruption.reason ~= nil and disruption.reason ~= "" then
    message = message .. " (" .. disruption.reason .. ")"
  end
  if isTrue(conditions, "InstanceTerminating") then
    message = message .. ": instance terminating"
  elseif isTrue(conditions, "Drained") then
    message = message .. ": drained"
  elseif isTrue(conditions, "Initialized") then
    message = message .. ": draining"
  end
  hs.status = "Progressing"
  hs.message = message
  return hs
end

if #conditions == 0 then
  hs.status = "Progressing"
  hs.message = "waiting for the NodeClaim to be launched"
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

local launched = condition(conditions, "Launched")
if launched ~= nil and launched.status ~= "True" and (launched.status == "False" or launched.reason == "LaunchFailed") then
  hs.status = "Degraded"
  hs.message = describe(launched)
  return hs
end
for _, kind in ipairs({ "Registered", "Initialized" }) do
  local c = condition(conditions, kind)
  if c ~= nil and c.status == "False" then
    hs.status = "Degraded"
    hs.message = describe(c)
    return hs
  end
end

if disruption ~= nil and disruption.status == "True" then
  hs.status = "Progressing"
  hs.message = "being disrupted: " .. describe(disruption)
  return hs
end

if not isTrue(conditions, "Initialized") then
  hs.status = "Progressing"
  if isTrue(conditions, "Registered") then
    hs.message = "registered, waiting for initialization"
  elseif isTrue(conditions, "Launched") then
    hs.message = "launched, waiting for the node to register"
  else
    hs.message = "waiting for the NodeClaim to be launched"
  end
  return hs
end

local ready = condition(conditions, "Ready")
if ready == nil or ready.status ~= "True" then
  if ready ~= nil and ready.status == "False" then
    hs.status = "Degraded"
    hs.message = describe(ready)
  else
    hs.status = "Progressing"
    hs.message = "initialized, waiting for Ready"
  end
  return hs
end

hs.status = "Healthy"
hs.message = "Ready"
local drifted = condition(conditions, "Drifted")
if drifted ~= nil and drifted.status == "True" then
  hs.message = "Ready; " .. describe(drifted)
end
return hs
