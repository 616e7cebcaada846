-- The floor's post-value.lua (BASE_SCRIPT) with one credential header (AUTH_HEADER / AUTH_VALUE), and
-- every REFUSE_EVERY-th request a value write to REFUSED_ID, a variable the daemon refuses to let a
-- client write (a platform-managed one: 409), as a misconfigured driver would send among good writes.
dofile(os.getenv("BASE_SCRIPT"))
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
if name and name ~= "" then wrk.headers[name] = value end
local every = tonumber(os.getenv("REFUSE_EVERY") or "0")
local refused = os.getenv("REFUSED_ID")
local base_request = request
local n = 0
request = function()
  n = n + 1
  if every > 0 and n % every == 0 then
    return wrk.format(nil, "/api/v1/variables/" .. refused .. "/value", nil, '{"value":"x"}')
  end
  return base_request()
end
