-- wrk script: PUT a heartbeat for one of SUBSYSTEMS subsystems (externalId hb1 … hbN), in turn,
-- with one credential header when AUTH_HEADER / AUTH_VALUE are given, or with each subsystem's own
-- credential (line n of the file TOKENS_FILE for hbn) in the AUTH_HEADER header.
local counter = 0
local count = tonumber(os.getenv("SUBSYSTEMS") or "5000")
local name, value = os.getenv("AUTH_HEADER"), os.getenv("AUTH_VALUE")
local file = os.getenv("TOKENS_FILE")
local tokens = nil
if file and file ~= "" then
  tokens = {}
  for line in io.lines(file) do tokens[#tokens + 1] = line end
elseif name and name ~= "" then
  wrk.headers[name] = value
end
wrk.method = "PUT"
request = function()
  counter = counter + 1
  local n = (counter % count) + 1
  local path = "/api/v1/subsystems/hb" .. n .. "/heartbeat"
  if tokens then return wrk.format(nil, path, { [name] = tokens[n] }) end
  return wrk.format(nil, path)
end
