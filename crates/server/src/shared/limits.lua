-- Requests of one API key against its three limits, atomically, in Redis time. The same rules as
-- the in-process limiter (crates/server/src/limiter.rs), in microseconds: a burst that refills at the
-- key's steady rate (GCRA: `tat` is the theoretical arrival time of the next request), at most
-- `per_minute` requests in each clock minute and `per_day` in each UTC day. Only a request that
-- passes is counted.
--
-- Several requests of the key may be judged at once, as if they arrived one after another at this
-- instant: the first of them pass while all three limits allow, and the rest are refused (once one
-- is refused, every later one is too, since a refusal changes nothing).
--
-- KEYS[1]: the key's hash (fields tat, minute, minute_count, day, day_count).
-- ARGV: interval (microseconds between requests at the steady rate), tolerance (how far `tat` may
-- run ahead of now: the burst), per_minute, per_day, requests (how many are judged).
-- Returns {admitted, now, tat, minute_count, day_count}, the last three as they were before these
-- requests (with `tat` no earlier than now), so that the caller works out each request's state,
-- what is left and how long to wait.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local per_minute, per_day, requests = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])

local stored = redis.call('HMGET', KEYS[1], 'tat', 'minute', 'minute_count', 'day', 'day_count')
local minute = math.floor(now / 60000000)
local day = math.floor(now / 86400000000)
local tat = math.max(tonumber(stored[1]) or 0, now)
local minute_count = 0
if tonumber(stored[2]) == minute then minute_count = tonumber(stored[3]) end
local same_day = tonumber(stored[4]) == day
local day_count = 0
if same_day then day_count = tonumber(stored[5]) end

-- The burst lets through every request whose arrival time stays within `tolerance` of now.
local by_burst = 0
if tat <= now + tolerance then by_burst = math.floor((now + tolerance - tat) / interval) + 1 end
local admitted = math.max(0, math.min(requests, by_burst, per_minute - minute_count, per_day - day_count))
if admitted > 0 then
    redis.call('HSET', KEYS[1], 'tat', tat + admitted * interval, 'minute', minute,
        'minute_count', minute_count + admitted, 'day', day, 'day_count', day_count + admitted)
    -- Kept until the day it counts is over, and an hour more for clocks that disagree; set when the
    -- day's first request makes the day.
    if not same_day then redis.call('PEXPIREAT', KEYS[1], (day + 1) * 86400000 + 3600000) end
end
return {admitted, now, tat, minute_count, day_count}
