-- wrk script: a value write by reference (§4.2) to one of 1000 variables (externalRef var1 … var1000
-- of subsystem `bench`, as bench/support.ts seedValues makes them), in turn:
-- PUT /api/v1/subsystems/bench/variables/var{n}/lastValue, or with BY_NAME=1
-- PUT /api/v1/variable/lastValue/bench/var{n}; one credential header when AUTH_HEADER / AUTH_VALUE are given.
local counter = 0
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
local byName = os.getenv("BY_NAME") == "1"
wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
if name and name ~= "" then wrk.headers[name] = value end
request = function()
  counter = counter + 1
  local n = (counter % 1000) + 1
  local path = byName and ("/api/v1/variable/lastValue/bench/var" .. n)
    or ("/api/v1/subsystems/bench/variables/var" .. n .. "/lastValue")
  return wrk.format(nil, path, nil, '{"value":"' .. counter .. '"}')
end
