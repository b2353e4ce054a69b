-- Hand-written Cursor IDE globalStorage/state.vscdb (tests/test_cursor_ide.py builds it).
-- c-agent: bubbles in their own rows, createdAt as ms and as ISO text, an isThought bubble, a
-- double-encoded rawArgs, a call without rawArgs (params used), a cancelled call, a call still
-- running (no result), an image, a bubble row the headers do not list. c-draft: no bubble.
-- c-legacy: bubbles inline in the composer. ItemTable holds the account's token: never read.
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES ('cursorAuth/accessToken', 'eyJ-SECRET-TOKEN');
INSERT INTO cursorDiskKV VALUES ('composerData:c-agent', '{"_v":10,"composerId":"c-agent","name":"Tidy the build","createdAt":1785000000000,"unifiedMode":"agent","workspaceIdentifier":{"id":"ws1"},"fullConversationHeadersOnly":[{"bubbleId":"u1","type":1},{"bubbleId":"t1","type":2},{"bubbleId":"k1","type":2},{"bubbleId":"k2","type":2},{"bubbleId":"k3","type":2},{"bubbleId":"k4","type":2},{"bubbleId":"a1","type":2},{"bubbleId":"gone","type":2}]}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:u1', '{"bubbleId":"u1","type":1,"text":"Tidy the Makefile","createdAt":1785000001000,"workspaceUris":["file:///home/dev/my%20app"],"images":[{"url":"data:image/png;base64,iVBORw0KGgo="}]}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:t1', '{"bubbleId":"t1","type":2,"text":"Look at the Makefile first.","isThought":true,"createdAt":"2026-07-27T03:38:46.001Z"}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:k1', '{"bubbleId":"k1","type":2,"text":"","createdAt":"2026-07-27T03:38:47.000Z","modelInfo":{"modelName":"gpt-5"},"toolFormerData":{"toolCallId":"call_1","name":"read_file","rawArgs":"\"{\\\"target_file\\\": \\\"Makefile\\\"}\"","params":"{\"targetFile\":\"Makefile\"}","status":"completed","result":"{\"contents\":\"all:\\n\\tcc main.c\\n\"}"}}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:k2', '{"bubbleId":"k2","type":2,"text":"","createdAt":1785000003000,"toolFormerData":{"toolCallId":"call_2","name":"mcp_github_search","params":"{\"query\":\"make tidy\"}","status":"completed","result":"[\"a\",\"b\"]"}}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:k3', '{"bubbleId":"k3","type":2,"text":"","createdAt":1785000004000,"toolFormerData":{"toolCallId":"call_3","name":"run_terminal_cmd","rawArgs":"{\"command\":\"make\"}","status":"cancelled","result":"{\"output\":\"\"}"}}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:k4', '{"bubbleId":"k4","type":2,"text":"","createdAt":1785000005000,"toolFormerData":{"toolCallId":"call_4","name":"edit_file","rawArgs":"{\"target_file\":\"Makefile\"}","status":"loading"}}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:a1', '{"bubbleId":"a1","type":2,"text":"The Makefile is tidy now.","createdAt":1785000006000,"modelInfo":{"modelName":"gpt-5"},"tokenCount":{"inputTokens":900,"outputTokens":30}}');
INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:stray', '{"bubbleId":"stray","type":2,"text":"not in the headers"}');
INSERT INTO cursorDiskKV VALUES ('composerData:c-draft', '{"_v":10,"composerId":"c-draft","name":"","createdAt":1785000100000,"fullConversationHeadersOnly":[]}');
INSERT INTO cursorDiskKV VALUES ('composerData:c-legacy', '{"_v":2,"composerId":"c-legacy","name":"Old chat","createdAt":1784000000000,"conversation":[{"bubbleId":"l1","type":1,"text":"What does main.c do?","createdAt":1784000000000},{"bubbleId":"l2","type":2,"text":"It prints hello.","createdAt":1784000001000}]}');
INSERT INTO cursorDiskKV VALUES ('checkpointId:c-agent:x', '{"files":[]}');
