-- wrk script: POST /api/v1/logs, an activity entry a driver posts, with one credential header when
-- AUTH_HEADER / AUTH_VALUE are given.
local counter = 0
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if name and name ~= "" then wrk.headers[name] = value end
request = function()
  counter = counter + 1
  return wrk.format(nil, "/api/v1/logs", nil, '{"key":"driver.note","value":"note ' .. counter .. '","severity":"info"}')
end
