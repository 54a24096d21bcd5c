// The peer benchmark's MCP server made with the official TypeScript SDK
// (McpServer), serving the three benchmark tools over stdio or over
// Streamable HTTP with stateful sessions (integration/peers drives it):
//
//	node server.mjs stdio
//	node server.mjs http PORT    # 0 picks a free port
//
// Over HTTP it prints `peer: serving MCP at /mcp on http://127.0.0.1:PORT`
// on stderr once it listens, as nexus does. Each tool answers one text
// block holding the compact JSON of its value, as nexus does.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const trivial = (x) => x;
const shout = (s) => [...s].reverse().join("").toUpperCase();
const total = (xs) => xs.reduce((sum, x) => sum + x, 0);

function text(value) {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

function newServer() {
  const server = new McpServer({ name: "peers", version: "bench" });
  server.registerTool(
    "trivial",
    { description: "The integer, unchanged.", inputSchema: { x: z.number().int() } },
    async ({ x }) => text(trivial(x)),
  );
  server.registerTool(
    "shout",
    { description: "The string reversed and in upper case.", inputSchema: { s: z.string() } },
    async ({ s }) => text(shout(s)),
  );
  server.registerTool(
    "total",
    { description: "The sum of the numbers.", inputSchema: { xs: z.array(z.number()) } },
    async ({ xs }) => text(total(xs)),
  );
  return server;
}

async function serveStdio() {
  await newServer().connect(new StdioServerTransport());
}

// serveHTTP follows the SDK's own stateful example: one transport and one
// McpServer per session, found by the Mcp-Session-Id header; replies in
// JSON rather than SSE, as nexus and the other peers answer.
function serveHTTP(port) {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const id = req.headers["mcp-session-id"];
      let body;
      if (req.method === "POST") {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      }
      let transport = id ? transports.get(id) : undefined;
      if (!transport) {
        if (id || req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(id ? 404 : 400, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no valid session" }, id: null }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => transports.set(sid, transport),
          onsessionclosed: (sid) => transports.delete(sid),
        });
        transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(String(err));
    }
  });
  http.keepAliveTimeout = 60_000;
  http.listen(port, "127.0.0.1", () => {
    process.stderr.write(`peer: serving MCP at /mcp on http://127.0.0.1:${http.address().port}\n`);
  });
  const stop = () => http.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const [mode, port] = process.argv.slice(2);
if (mode === "stdio") {
  await serveStdio();
} else if (mode === "http" && port !== undefined) {
  serveHTTP(Number(port));
} else {
  process.stderr.write("usage: node server.mjs stdio | http PORT\n");
  process.exit(2);
}
