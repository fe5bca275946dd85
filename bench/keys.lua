-- wrk script for bench/run's shared-limits case: each request carries the next of the API keys listed
-- in the file given after `--` (one per line), in turn, so that concurrent requests are of different
-- keys. The requests are formatted once, in init, so that the script costs wrk next to nothing.
local requests, n = {}, 0

function init(args)
    for key in io.lines(args[1]) do
        requests[#requests + 1] = wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. key })
    end
    assert(#requests > 0, "no keys in " .. tostring(args[1]))
end

function request()
    n = n % #requests + 1
    return requests[n]
end
