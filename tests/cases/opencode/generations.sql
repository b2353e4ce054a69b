-- Hand-written OpenCode database (tests/test_opencode.py builds it with sqlite3).
-- Both generations: ses_mig was migrated to 2.x (its rows are in message/part AND in
-- session_message, with the same ids): read once, from session_message. ses_v1 lives only in
-- the frozen 1.x tables. ses_kid is a sub-agent linked only by the task tool's
-- metadata.sessionId (no parent_id). ses_empty has no message. A column and a table this
-- reader does not know are present, and a credential table it must never read.
CREATE TABLE session (id text PRIMARY KEY, parent_id text, title text, directory text,
  version text, time_created integer, future_column text);
CREATE TABLE session_v2 (id text PRIMARY KEY, parent_id text, title text, directory text,
  version text, time_created integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text,
  future_column text);
CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,
  data text);
CREATE TABLE session_message (id text PRIMARY KEY, session_id text, type text, seq integer,
  time_created integer, data text);
CREATE TABLE future_table (id text, data text);
CREATE TABLE credential (id text, secret text);
INSERT INTO credential VALUES ('c1', 'sk-SECRET-NEVER-READ');
INSERT INTO future_table VALUES ('x', '{}');

INSERT INTO session VALUES ('ses_mig', NULL, 'Migrated (1.x row)', '/w', '1.18.0', 1000, 'x');
INSERT INTO session_v2 VALUES ('ses_mig', NULL, 'Migrated', '/w', '2.0.3', 1000);
INSERT INTO session VALUES ('ses_v1', NULL, 'Only 1.x', '/w', '1.18.0', 2000, NULL);
INSERT INTO session VALUES ('ses_kid', NULL, 'Look around (@explore subagent)', '/w', '1.18.0',
  2500, NULL);
INSERT INTO session VALUES ('ses_empty', NULL, 'New session', '/w', '1.18.0', 3000, NULL);

INSERT INTO message VALUES ('msg_m1', 'ses_mig', 1001,
  '{"role":"user","time":{"created":1001}}', NULL);
INSERT INTO part VALUES ('prt_m1', 'msg_m1', 'ses_mig', 1001,
  '{"type":"text","text":"old copy of the prompt"}');
INSERT INTO session_message VALUES ('msg_m1', 'ses_mig', 'user', 0, 1001,
  '{"text":"count the lines","time":{"created":1001}}');
INSERT INTO session_message VALUES ('msg_m2', 'ses_mig', 'model-switched', 1, 1002,
  '{"model":{"id":"m2"}}');
INSERT INTO session_message VALUES ('msg_m3', 'ses_mig', 'assistant', 2, 1003,
  '{"agent":"build","model":{"id":"m2","providerID":"p"},"content":[{"type":"reasoning","id":"r1","text":"use wc"},{"type":"tool","id":"call_wc","name":"bash","state":{"status":"completed","input":{"command":"wc -l a"},"content":[{"type":"text","text":"3 a"}],"result":{"exit":0}},"time":{"created":1003,"completed":1004}},{"type":"tool","id":"call_bad","name":"read","state":{"status":"error","input":{"filePath":"b"},"content":[],"error":"no such file"}},{"type":"text","id":"t1","text":"a has 3 lines"}],"finish":"stop","cost":0.5,"tokens":{"input":10,"output":5,"reasoning":2,"cache":{"read":1,"write":0}},"time":{"created":1003,"completed":1005}}');
INSERT INTO session_message VALUES ('msg_m4', 'ses_mig', 'shell', 3, 1006,
  '{"callID":"sh1","command":"ls","output":"a\nb\n","time":{"created":1006}}');
INSERT INTO session_message VALUES ('msg_m5', 'ses_mig', 'compaction', 4, 1007,
  '{"reason":"manual","summary":"Counted lines of a.","recent":"","time":{"created":1007}}');

INSERT INTO message VALUES ('msg_v1', 'ses_v1', 2001,
  '{"role":"user","time":{"created":2001},"model":{"providerID":"p","modelID":"m1"}}', NULL);
INSERT INTO part VALUES ('prt_v1a', 'msg_v1', 'ses_v1', 2001,
  '{"type":"text","text":"explore the repo"}');
INSERT INTO part VALUES ('prt_v1b', 'msg_v1', 'ses_v1', 2001,
  '{"type":"text","text":"(hidden from the model)","ignored":true}');
INSERT INTO part VALUES ('prt_v1c', 'msg_v1', 'ses_v1', 2001, '{"type":"text","text":""}');
INSERT INTO message VALUES ('msg_v2', 'ses_v1', 2002,
  '{"role":"assistant","parentID":"msg_v1","modelID":"m1","providerID":"p","time":{"created":2002},"finish":"tool-calls"}', NULL);
INSERT INTO part VALUES ('prt_v2a', 'msg_v2', 'ses_v1', 2002, '{"type":"step-start"}');
INSERT INTO part VALUES ('prt_v2b', 'msg_v2', 'ses_v1', 2002,
  '{"type":"tool","callID":"call_task","tool":"task","state":{"status":"completed","input":{"prompt":"look around","subagent_type":"explore"},"output":"done","metadata":{"sessionId":"ses_kid"},"time":{"start":2002,"end":2400}}}');
INSERT INTO part VALUES ('prt_v2c', 'msg_v2', 'ses_v1', 2002,
  '{"type":"tool","callID":"call_wait","tool":"bash","state":{"status":"running","input":{"command":"sleep 9"},"time":{"start":2003}}}');
INSERT INTO part VALUES ('prt_v2e', 'msg_v2', 'ses_v1', 2002,
  '{"type":"step-finish","reason":"tool-calls","cost":0.25,"tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":2}}}');
INSERT INTO part VALUES ('prt_v2f', 'msg_v2', 'ses_v1', 2002,
  '{"type":"step-finish","reason":"tool-calls","cost":0.25,"tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}');

INSERT INTO message VALUES ('msg_k1', 'ses_kid', 2501, '{"role":"user","time":{"created":2501}}',
  NULL);
INSERT INTO part VALUES ('prt_k1', 'msg_k1', 'ses_kid', 2501, '{"type":"text","text":"look around"}');
INSERT INTO message VALUES ('msg_k2', 'ses_kid', 2502,
  '{"role":"assistant","modelID":"m1","providerID":"p","time":{"created":2502},"finish":"stop"}', NULL);
INSERT INTO part VALUES ('prt_k2', 'msg_k2', 'ses_kid', 2502, '{"type":"text","text":"done"}');
