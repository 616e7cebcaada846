-- wrk script: PUT a heartbeat for one of SUBSYSTEMS subsystems (externalId hb1 … hbN), in turn,
-- with one credential header when AUTH_HEADER / AUTH_VALUE are given.
local counter = 0
local count = tonumber(os.getenv("SUBSYSTEMS") or "5000")
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
wrk.method = "PUT"
if name and name ~= "" then wrk.headers[name] = value end
request = function()
  counter = counter + 1
  return wrk.format(nil, "/api/v1/subsystems/hb" .. ((counter % count) + 1) .. "/heartbeat")
end
