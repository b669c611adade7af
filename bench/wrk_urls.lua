-- wrk script: requests the paths listed in the file named by URLS (one URL per line),
-- in order, each thread starting at a different offset, cycling.
local paths = {}
for line in io.lines(os.getenv("URLS")) do
  local path = line:match("^https?://[^/]+(/.*)$")
  if path then paths[#paths + 1] = path end
end
local i = 0
setup = function(thread) thread:set("offset", #paths) end
init = function(args) i = math.random(#paths) end
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
