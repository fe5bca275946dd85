-- Adds requests to a key's count of one UTC day in Redis: requests a replica admitted while Redis was
-- out of reach, or, with `at_least` 1, the count the accounts database recorded (after Redis lost its
-- data), which only ever raises the count. A day that is not the stored one replaces it only
-- when it is later.
--
-- KEYS[1]: the key's hash (see limits.lua). ARGV: day (days since the epoch), requests, at_least (0:
-- add the requests, 1: raise the count to at least them).

local day, requests, at_least = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local stored = redis.call('HMGET', KEYS[1], 'day', 'day_count')
local stored_day, count = tonumber(stored[1]), tonumber(stored[2]) or 0
if stored_day ~= nil and stored_day > day then
    return 0
end
if stored_day ~= day then
    count = 0
end
if at_least then
    count = math.max(count, requests)
else
    count = count + requests
end
redis.call('HSET', KEYS[1], 'day', day, 'day_count', count)
redis.call('PEXPIREAT', KEYS[1], (day + 1) * 86400000 + 3600000)
return count
