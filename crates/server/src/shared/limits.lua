-- Requests of one API key against its three limits, atomically, in Redis time. The same rules as
-- the in-process limiter (crates/server/src/limiter.rs), in microseconds: a burst that refills at the
-- key's steady rate (GCRA: `tat` is the theoretical arrival time of the next request), at most
-- `per_minute` requests in each clock minute and `per_day` in each UTC day. Only a request that
-- passes is counted. A browser key's callers each have a burst and a minute of their own, in a hash
-- beside the key's, and share the key's day.
--
-- Several requests of the key may be judged at once, as if they arrived one after another at this
-- instant: the first of them pass while all three limits allow, and the rest are refused (once one
-- is refused, every later one is too, since a refusal changes nothing).
--
-- KEYS[1]: the hash of the burst and the minute (fields tat, minute, minute_count): the key's own,
-- or its caller's. KEYS[2]: the key's hash, which holds the day (fields day, day_count); the same
-- as KEYS[1] for a key whose limits hold for all its callers together. Both share a hash tag.
-- ARGV: interval (microseconds between requests at the steady rate), tolerance (how far `tat` may
-- run ahead of now: the burst), per_minute, per_day, requests (how many are judged).
-- Returns {admitted, now, tat, minute_count, day_count}, the last three as they were before these
-- requests (with `tat` no earlier than now), so that the caller works out each request's state,
-- what is left and how long to wait.

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local per_minute, per_day, requests = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])

-- A key's own hash is read and written in one call each, as before browser keys: every call costs
-- Redis's one core.
local one_hash = KEYS[1] == KEYS[2]
local own, whole
if one_hash then
    local stored = redis.call('HMGET', KEYS[1], 'tat', 'minute', 'minute_count', 'day', 'day_count')
    own, whole = stored, {stored[4], stored[5]}
else
    own = redis.call('HMGET', KEYS[1], 'tat', 'minute', 'minute_count')
    whole = redis.call('HMGET', KEYS[2], 'day', 'day_count')
end
local minute = math.floor(now / 60000000)
local day = math.floor(now / 86400000000)
local tat = math.max(tonumber(own[1]) or 0, now)
local minute_count = 0
if tonumber(own[2]) == minute then minute_count = tonumber(own[3]) end
local same_day = tonumber(whole[1]) == day
local day_count = 0
if same_day then day_count = tonumber(whole[2]) end

-- The burst lets through every request whose arrival time stays within `tolerance` of now.
local by_burst = 0
if tat <= now + tolerance then by_burst = math.floor((now + tolerance - tat) / interval) + 1 end
local admitted = math.max(0, math.min(requests, by_burst, per_minute - minute_count, per_day - day_count))
if admitted > 0 then
    local next_tat = tat + admitted * interval
    if one_hash then
        redis.call('HSET', KEYS[1], 'tat', next_tat, 'minute', minute, 'minute_count', minute_count + admitted,
            'day', day, 'day_count', day_count + admitted)
    else
        redis.call('HSET', KEYS[1], 'tat', next_tat, 'minute', minute, 'minute_count', minute_count + admitted)
        redis.call('HSET', KEYS[2], 'day', day, 'day_count', day_count + admitted)
    end
    if not one_hash then
        -- A caller's state matters until its burst has refilled and its minute is over; a second
        -- more for clocks that disagree.
        local until_us = math.max(next_tat, (minute + 1) * 60000000)
        redis.call('PEXPIREAT', KEYS[1], math.floor(until_us / 1000) + 1000)
    end
    -- The key's hash is kept until the day it counts is over, and an hour more for clocks that
    -- disagree; set when the day's first request makes the day.
    if not same_day then redis.call('PEXPIREAT', KEYS[2], (day + 1) * 86400000 + 3600000) end
end
return {admitted, now, tat, minute_count, day_count}
