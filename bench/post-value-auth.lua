-- The floor's post-value.lua (BASE_SCRIPT) with one credential header on every request:
-- AUTH_HEADER=isaac-token AUTH_VALUE=pms_…, or AUTH_HEADER=Cookie AUTH_VALUE=session=pmss_…
dofile(os.getenv("BASE_SCRIPT"))
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
if name and name ~= "" then wrk.headers[name] = value end
