// The status page's call form: the one part of the page that needs
// JavaScript. It calls a tool by a stateless MCP 2026-07-28 tools/call,
// POSTed to /mcp on this same origin (the endpoint both nexus mcp
// --http-port and nexus serve have), and shows the result or the error.
// It sends no credential of its own: a token, when the server needs one,
// must come with every request the browser makes (docs/operations.md).
"use strict";

const protocol = "2026-07-28";

// mcpName is a tool name as the Mcp-Name header carries it: as it is when
// printable ASCII, else in the =?base64?...?= form.
function mcpName(name) {
  if (/^[\x20-\x7e]*$/.test(name)) return name;
  const bytes = new TextEncoder().encode(name);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return "=?base64?" + btoa(bin) + "?=";
}

// readArgs builds the arguments from the form: the JSON object of the
// textarea when it is not empty, else each field that was filled in
// (strings as typed, the rest as JSON). A field left empty is left out,
// so it takes its default.
function readArgs(form) {
  const all = form.querySelector("[data-input=all]").value.trim();
  if (all !== "") {
    const v = JSON.parse(all);
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("the arguments must be a JSON object");
    return v;
  }
  const args = {};
  for (const el of form.querySelectorAll("[data-input]")) {
    const kind = el.dataset.input;
    if (kind === "all" || el.value === "") continue;
    if (kind === "string") {
      args[el.name] = el.value;
    } else if (kind === "boolean") {
      args[el.name] = el.value === "true";
    } else {
      try {
        args[el.name] = JSON.parse(el.value);
      } catch (e) {
        throw new Error(el.name + ": not JSON: " + e.message);
      }
    }
  }
  return args;
}

// lastMessage is the JSON-RPC reply in a response: the JSON body, or the
// data of the last event of a one-event stream.
async function lastMessage(resp) {
  const text = await resp.text();
  if ((resp.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
    const data = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim());
    return JSON.parse(data[data.length - 1]);
  }
  return JSON.parse(text);
}

// describe is a tools/call result as text: the structured content when
// there is some, else the text of each content block.
function describe(result) {
  if (result.structuredContent !== undefined && !result.isError) {
    return JSON.stringify(result.structuredContent, null, 2);
  }
  return (result.content || []).map((c) => c.type === "text" ? c.text : "[" + c.type + (c.mimeType ? " " + c.mimeType : "") + "]").join("\n");
}

async function call(form) {
  const name = form.dataset.tool;
  const body = {
    jsonrpc: "2.0", id: 1, method: "tools/call",
    params: {
      name: name, arguments: readArgs(form),
      _meta: { "io.modelcontextprotocol/protocolVersion": protocol, "io.modelcontextprotocol/clientCapabilities": {} },
    },
  };
  const resp = await fetch("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Accept": "application/json, text/event-stream",
      "MCP-Protocol-Version": protocol,
      "Mcp-Method": "tools/call",
      "Mcp-Name": mcpName(name),
    },
    body: JSON.stringify(body),
  });
  let msg;
  try {
    msg = await lastMessage(resp);
  } catch (e) {
    throw new Error("HTTP " + resp.status + ": the reply is not JSON");
  }
  if (!resp.ok && msg.error === undefined) throw new Error("HTTP " + resp.status);
  if (typeof msg.error === "string") throw new Error("HTTP " + resp.status + ": " + msg.error); // the guard's refusals
  if (msg.error) throw new Error("error " + msg.error.code + ": " + msg.error.message);
  if (msg.result.isError) throw new Error(describe(msg.result));
  return describe(msg.result);
}

function show(out, text, failed) {
  out.textContent = text;
  out.classList.toggle("failed", failed);
  out.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form.call")) {
    const out = form.querySelector(".result");
    const fields = form.querySelector("fieldset");
    fields.disabled = false;
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      fields.disabled = true;
      show(out, "calling…", false);
      try {
        show(out, await call(form), false);
      } catch (e) {
        show(out, e.message, true);
      } finally {
        fields.disabled = false;
      }
    });
  }
});
