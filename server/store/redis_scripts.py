"""The Lua scripts of the Redis store: one round trip per compare-and-set write.

Key layout of room ``R`` under the key prefix ``P`` (every key of the room
carries the hash tag ``{room:R}``, so one room lives on one Cluster slot and
each script touches one slot only):

- ``P{room:R}`` — hash: ``room`` → ``"<rev>\\n<record JSON>"``, ``r:<racer>``
  → ``"<rev>\\n<record JSON>"``, ``seq`` → the last event sequence number,
  ``code`` → the room's short code;
- ``P{room:R}:a`` — hash: ``<racer>\\n<client move id>`` → answer JSON;
- ``P{room:R}:e`` — stream of events, entry id ``<seq>-0``, field ``e`` →
  event JSON (with ``seq``), trimmed to exactly ``retention`` entries;
- channel ``P{room:R}:ch`` — each write publishes its events there,
  newline-separated, for the processes that follow the room.

Outside the room's slot: ``P{code:C}`` → room id (short codes);
``Prooms`` — sorted set of live room ids scored by their expiry (Unix ms);
``Plobby`` — sorted set of public waiting rooms scored by until when they are
listed; ``Ptimers`` — sorted set of rooms scored by their next timer (Unix ms);
``Parchive`` — sorted set of finished rooms not yet archived, scored by until
when their archive claim holds (Unix ms; 0: unclaimed); ``Pquick:<slot>`` —
a quick race's forming-lobby pointer, ``"<room id>\n<opened ms>\n<seats>"``
with the lobby's expiry (:data:`TAKE_SEAT`, :data:`RETIRE_LOBBY`). A pending room's hash
has the field ``archive`` and none of its keys expire until it is archived
(:data:`END_ROOM` adds it in the write that ends the race; :data:`ARCHIVED`
takes it off and sets the expiry). On one Redis that one script writes both
the room's slot and ``Parchive`` (and the code key). On a Redis Cluster the
cross-room keys carry the hash tag ``{ix}`` (``P{ix}rooms``, ``P{ix}archive``
…) and no script touches two slots: both scripts then get the room's keys
only, and the store does the index writes as separate idempotent steps,
recovered by a sweep (:mod:`server.store.redis_archive`, docs/architecture.md).

Each write script returns ``{rev, first_seq}`` on success; ``{-1, rev}`` when the
stored rev is not the expected one; ``{-2, rev}`` when the client move id
already has an answer; ``{-3, room rev}`` when a racer write's expected room
rev is not the room's. A write that refuses changes nothing.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "APPEND",
    "ARCHIVED",
    "CLAIM_ARCHIVE",
    "CLAIM_CODE",
    "CLEAR_TIMER",
    "END_ROOM",
    "EXPIRE_CODE",
    "EXPIRE_ROOM",
    "PERSIST_CODE",
    "RETIRE_LOBBY",
    "SAVE_RACER",
    "SAVE_ROOM",
    "TAKE_SEAT",
    "TOUCH",
]

_LIB: Final = r"""
local function rev_of(v)
  if not v then return 0 end
  local nl = string.find(v, '\n', 1, true)
  return tonumber(string.sub(v, 1, nl - 1))
end
-- append ARGV[from..] as events of the room; returns the first seq (0: none)
local function append(hkey, ekey, retention, channel, from)
  local n = #ARGV - from + 1
  if n <= 0 then return 0 end
  local last = redis.call('HINCRBY', hkey, 'seq', n)
  local first = last - n + 1
  local out = {}
  for i = 0, n - 1 do
    local ev = ARGV[from + i]
    local seq = first + i
    local body
    if ev == '{}' then
      body = '{"seq":' .. seq .. '}'
    else
      body = '{"seq":' .. seq .. ',' .. string.sub(ev, 2)
    end
    redis.call('XADD', ekey, 'MAXLEN', retention, seq .. '-0', 'e', body)
    out[#out + 1] = body
  end
  redis.call('PUBLISH', channel, table.concat(out, '\n'))
  return first
end
-- keys created after expire_room get the room's deadline too
local function keep_ttl(hkey, k1, k2)
  local ttl = redis.call('PTTL', hkey)
  if ttl > 0 then
    redis.call('PEXPIRE', k1, ttl)
    if k2 then redis.call('PEXPIRE', k2, ttl) end
  end
end
"""

SAVE_ROOM: Final = _LIB + r"""
-- KEYS: hash, events; ARGV: expected_rev, record, retention, channel, events...
local cur = rev_of(redis.call('HGET', KEYS[1], 'room'))
if cur ~= tonumber(ARGV[1]) then return {-1, cur} end
local rev = cur + 1
redis.call('HSET', KEYS[1], 'room', rev .. '\n' .. ARGV[2])
local first = append(KEYS[1], KEYS[2], ARGV[3], ARGV[4], 5)
if first > 0 then keep_ttl(KEYS[1], KEYS[2]) end
return {rev, first}
"""

END_ROOM: Final = _LIB + r"""
-- SAVE_ROOM, and the room becomes pending for the archive in the same write.
-- KEYS: hash, events, answers[, archive zset, code key, rooms index: one Redis]
-- ARGV: expected_rev, record, retention, channel, room id, events...
local cur = rev_of(redis.call('HGET', KEYS[1], 'room'))
if cur ~= tonumber(ARGV[1]) then return {-1, cur} end
local rev = cur + 1
redis.call('HSET', KEYS[1], 'room', rev .. '\n' .. ARGV[2], 'archive', '1')
local first = append(KEYS[1], KEYS[2], ARGV[3], ARGV[4], 6)
for i = 1, 3 do redis.call('PERSIST', KEYS[i]) end
if #KEYS >= 6 then
  redis.call('ZADD', KEYS[4], 'NX', 0, ARGV[5])
  if redis.call('GET', KEYS[5]) == ARGV[5] then redis.call('PERSIST', KEYS[5]) end
  redis.call('ZADD', KEYS[6], 'XX', 'inf', ARGV[5])
end
return {rev, first}
"""

ARCHIVED: Final = r"""
-- KEYS: hash, answers, events[, archive zset: one Redis]; ARGV: room id, after_ms.
-- Returns {0} when the room does not exist, else {1, its code or ''}.
if #KEYS >= 4 then redis.call('ZREM', KEYS[4], ARGV[1]) end
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
redis.call('HDEL', KEYS[1], 'archive')
local code = redis.call('HGET', KEYS[1], 'code') or ''
local ms = tonumber(ARGV[2])
for i = 1, 3 do
  if ms <= 0 then redis.call('DEL', KEYS[i]) else redis.call('PEXPIRE', KEYS[i], ms) end
end
return {1, code}
"""

CLAIM_ARCHIVE: Final = r"""
-- KEYS: archive zset; ARGV: now ms, lease until ms, limit. The claimed ids.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return ids
"""

SAVE_RACER: Final = _LIB + r"""
-- KEYS: hash, answers, events
-- ARGV: racer field, expected_rev, record, answer field or '', answer, retention,
--       channel, expected room rev or '', events...
local cur = rev_of(redis.call('HGET', KEYS[1], ARGV[1]))
if cur ~= tonumber(ARGV[2]) then return {-1, cur} end
if ARGV[8] ~= '' then
  local room = rev_of(redis.call('HGET', KEYS[1], 'room'))
  if room ~= tonumber(ARGV[8]) then return {-3, room} end
end
if ARGV[4] ~= '' and redis.call('HEXISTS', KEYS[2], ARGV[4]) == 1 then return {-2, cur} end
local rev = cur + 1
redis.call('HSET', KEYS[1], ARGV[1], rev .. '\n' .. ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[4], ARGV[5]) end
local first = append(KEYS[1], KEYS[3], ARGV[6], ARGV[7], 9)
if ARGV[4] ~= '' then
  keep_ttl(KEYS[1], KEYS[2], first > 0 and KEYS[3] or nil)
elseif first > 0 then
  keep_ttl(KEYS[1], KEYS[3])
end
return {rev, first}
"""

APPEND: Final = _LIB + r"""
-- KEYS: hash, events; ARGV: retention, channel, events...
local first = append(KEYS[1], KEYS[2], ARGV[1], ARGV[2], 3)
if first > 0 then keep_ttl(KEYS[1], KEYS[2]) end
return {0, first}
"""

EXPIRE_ROOM: Final = r"""
-- KEYS: hash, answers, events; ARGV: after_ms.
-- Returns {0} when the room does not exist, {2} when it waits for the archive
-- (a positive delay is put off until ARCHIVED), else {1, its code or ''}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local ms = tonumber(ARGV[1])
if ms > 0 and redis.call('HEXISTS', KEYS[1], 'archive') == 1 then return {2} end
local code = redis.call('HGET', KEYS[1], 'code') or ''
for _, k in ipairs(KEYS) do
  if ms <= 0 then redis.call('DEL', k) else redis.call('PEXPIRE', k, ms) end
end
return {1, code}
"""

CLAIM_CODE: Final = r"""
-- KEYS: code key; ARGV: room id, ttl ms. 1: claimed (or already ours), 0: taken.
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
"""

EXPIRE_CODE: Final = r"""
-- KEYS: code key; ARGV: room id, after_ms. Only while the code is still the room's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) <= 0 then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""

PERSIST_CODE: Final = r"""
-- KEYS: code key; ARGV: room id. Keeps the code while it is still the room's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PERSIST', KEYS[1])
"""

TOUCH: Final = r"""
-- KEYS: the room hash. A write that changes nothing, so that a WAIT after it
-- covers every earlier write of the room (a stored answer read again).
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'w', 0) end
return 0
"""

CLEAR_TIMER: Final = r"""
-- KEYS[1] timers zset; ARGV[1] room id, ARGV[2] the deadline it must still have
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

TAKE_SEAT: Final = r"""
-- KEYS[1] a forming-lobby pointer; ARGV: capacity, the room wanted or '',
-- the room to open or '', now ms, ttl ms. Returns {room, opened ms, seat, 1 when
-- the caller opens the room else 0}, or false (RoomIndexes.take_seat).
local cur = redis.call('GET', KEYS[1])
local room, opened, seats
if cur then
  local a = string.find(cur, '\n', 1, true)
  local b = string.find(cur, '\n', a + 1, true)
  room = string.sub(cur, 1, a - 1)
  opened = string.sub(cur, a + 1, b - 1)
  seats = tonumber(string.sub(cur, b + 1))
end
local cap = tonumber(ARGV[1])
if room and (ARGV[2] == '' or ARGV[2] == room) and seats < cap then
  seats = seats + 1
  redis.call('SET', KEYS[1], room .. '\n' .. opened .. '\n' .. seats, 'KEEPTTL')
  return {room, opened, seats, 0}
end
if ARGV[3] ~= '' and (not room or seats >= cap) then
  redis.call('SET', KEYS[1], ARGV[3] .. '\n' .. ARGV[4] .. '\n1', 'PX', ARGV[5])
  return {ARGV[3], ARGV[4], 1, 1}
end
return false
"""

RETIRE_LOBBY: Final = r"""
-- KEYS[1] a forming-lobby pointer; ARGV[1] the room it must still name
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '\n' then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
