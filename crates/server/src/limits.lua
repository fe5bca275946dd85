-- One request of one API key against its three limits, atomically, in Redis time. The same rules as
-- the in-process limiter (crates/server/src/limiter.rs), in microseconds: a burst that refills at the
-- key's steady rate (GCRA: `tat` is the theoretical arrival time of the next request), at most
-- `per_minute` requests in each clock minute and `per_day` in each UTC day. Only a request that
-- passes is counted.
--
-- KEYS[1]: the key's hash (fields tat, minute, minute_count, day, day_count).
-- ARGV: interval (microseconds between requests at the steady rate), tolerance (how far `tat` may
-- run ahead of now: the burst), per_minute, per_day.
-- Returns {passed (1 or 0), now, tat, minute_count, day_count}, the last three as they are after the
-- request (counted or not), so that the caller works out what is left and how long to wait.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local per_minute, per_day = tonumber(ARGV[3]), tonumber(ARGV[4])

local stored = redis.call('HMGET', KEYS[1], 'tat', 'minute', 'minute_count', 'day', 'day_count')
local minute = math.floor(now / 60000000)
local day = math.floor(now / 86400000000)
local tat = math.max(tonumber(stored[1]) or 0, now)
local minute_count = 0
if tonumber(stored[2]) == minute then minute_count = tonumber(stored[3]) end
local day_count = 0
if tonumber(stored[4]) == day then day_count = tonumber(stored[5]) end

if tat > now + tolerance or minute_count >= per_minute or day_count >= per_day then
    return {0, now, tat, minute_count, day_count}
end
tat = tat + interval
minute_count = minute_count + 1
day_count = day_count + 1
redis.call('HSET', KEYS[1], 'tat', tat, 'minute', minute, 'minute_count', minute_count,
    'day', day, 'day_count', day_count)
-- Kept until the day it counts is over, and an hour more for clocks that disagree.
redis.call('PEXPIREAT', KEYS[1], (day + 1) * 86400000 + 3600000)
return {1, now, tat, minute_count, day_count}
