-- wrk script: POST to one of 1000 variables a new value each time that flaps it between healthy and
-- error: below 80 for two seconds, then above 90 for two (rule error > 90, grace period 1 s, the
-- shortest there is): each variable changes health twice every 4 s, 500 health changes a second
-- over the 1000, beside the value writes the ingest bench makes (every value differs from the last).
-- ID_OFFSET shifts the variable ids; AUTH_HEADER ("isaac-token: pms_…") adds a credential.
local counter = 0
local offset = tonumber(os.getenv("ID_OFFSET") or "0")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local auth = os.getenv("AUTH_HEADER")
if auth and auth ~= "" then
  local name, value = auth:match("^([^:]+):%s*(.*)$")
  wrk.headers[name] = value
end
request = function()
  counter = counter + 1
  local id = (counter % 1000) + 1 + offset
  local value = (os.time() % 4 < 2) and (counter % 80) or (91 + counter % 8)
  return wrk.format(nil, "/api/v1/variables/" .. id .. "/value", nil, '{"value":"' .. value .. '"}')
end
