-- Argo CD health for karpenter.k8s.aws/EC2NodeClass as kerf (and Karpenter v1) report it.
-- Runs in argocd-cm without the Lua standard libraries: no string.*, only base functions and table.
-- Progressing: being deleted (the finalizer waits for the class's NodeClaims), no status yet, a
--   condition observed an older metadata.generation, Ready=Unknown, or the only failures are ones the
--   controller retries every minute (InstanceProfileCreationFailed: IAM is eventually consistent).
-- Degraded: ValidationSucceeded=False, or a selector or profile that matches nothing (AMINotFound,
--   SubnetsNotFound, SecurityGroupsNotFound, InstanceProfileNotFound): only a change to the spec or to
--   the AWS account fixes those; also Ready=False with no failing dependent to explain it.
-- Healthy: Ready=True.
local hs = {}

local permanent = {
  AMINotFound = true,
  SubnetsNotFound = true,
  SecurityGroupsNotFound = true,
  InstanceProfileNotFound = true,
}

local function describe(c)
  local text = c.type .. "=" .. tostring(c.status)
  if c.reason ~= nil and c.reason ~= "" then text = text .. " (" .. c.reason .. ")" end
  if c.message ~= nil and c.message ~= "" then text = text .. ": " .. c.message end
  return text
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "terminating: waiting for the NodeClaims that use this EC2NodeClass to be deleted"
  return hs
end

local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then conditions = obj.status.conditions end
if #conditions == 0 then
  hs.status = "Progressing"
  hs.message = "waiting for the controller to resolve the EC2NodeClass"
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

local ready = nil
local failing = {}
local fatal = false
for _, c in ipairs(conditions) do
  if c.type == "Ready" then
    ready = c
  elseif c.status == "False" then
    table.insert(failing, describe(c))
    if c.type == "ValidationSucceeded" or permanent[c.reason] then fatal = true end
  end
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "Ready"
  return hs
end
if ready ~= nil and ready.status == "False" then
  if #failing == 0 then
    hs.status = "Degraded"
    hs.message = describe(ready)
  elseif fatal then
    hs.status = "Degraded"
    hs.message = table.concat(failing, "; ")
  else
    hs.status = "Progressing"
    hs.message = "retrying: " .. table.concat(failing, "; ")
  end
  return hs
end
hs.status = "Progressing"
hs.message = "waiting for the EC2NodeClass to become Ready"
if #failing > 0 then hs.message = hs.message .. ": " .. table.concat(failing, "; ") end
return hs
