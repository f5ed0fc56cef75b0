package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The MCP requests of the load. The inference gateway calls an MCP tool only when the model
// answers a chat completion with a tool call (llm-d-inference-sim v0.10.2 refuses the tool
// definitions the gateway adds: hack/operands/samples/inference-gateway.yaml), so a tool call
// goes to the MCP server's Service the operator renders, while the gateway's side of MCP is its
// tool list (GET /v1/mcp/tools), the MCP servers' tools it discovered.

// ParseMCPTools is the tool names of an inference gateway's GET /v1/mcp/tools answer.
func ParseMCPTools(body []byte) ([]string, error) {
	var r struct {
		Data *[]struct{ Name string } `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: %s", err, body)
	}
	if r.Data == nil {
		return nil, fmt.Errorf("no data: %s", body)
	}
	names := make([]string, 0, len(*r.Data))
	for _, t := range *r.Data {
		names = append(names, t.Name)
	}
	return names, nil
}

// mcpProtocolVersion is the MCP revision of the streamable HTTP transport the client speaks.
const mcpProtocolVersion = "2025-03-26"

// mcpSessionHeader carries the session the server gave at initialize.
const mcpSessionHeader = "Mcp-Session-Id"

// MCPRequest is the JSON-RPC request body of method with params; id 0 makes a notification.
func MCPRequest(id int, method string, params any) []byte {
	req := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != 0 {
		req["id"] = id
	}
	if params != nil {
		req["params"] = params
	}
	body, _ := json.Marshal(req)
	return body
}

// MCPToolResult is the text of a tools/call answer: the JSON-RPC response, as JSON or as the
// first `data:` event of a text/event-stream answer. A JSON-RPC error, a tool error (isError)
// or no text content is an error.
func MCPToolResult(contentType string, body []byte) (string, error) {
	msg, err := mcpMessage(contentType, body)
	if err != nil {
		return "", err
	}
	var r struct {
		Error *struct {
			Code    int
			Message string
		}
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return "", fmt.Errorf("%w: %s", err, msg)
	}
	if r.Error != nil {
		return "", fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil {
		return "", fmt.Errorf("no result: %s", msg)
	}
	var text []string
	for _, c := range r.Result.Content {
		if c.Type == "text" {
			text = append(text, c.Text)
		}
	}
	if r.Result.IsError {
		return "", fmt.Errorf("the tool failed: %s", strings.Join(text, " "))
	}
	if len(text) == 0 {
		return "", fmt.Errorf("no text content: %s", msg)
	}
	return strings.Join(text, "\n"), nil
}

// mcpMessage is the JSON-RPC message of an answer: the body itself, or the first data event of
// a stream.
func mcpMessage(contentType string, body []byte) ([]byte, error) {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return body, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
			return []byte(strings.TrimSpace(data)), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("an event stream without data: %q", body)
}

// ErrMCPStatus is an MCP answer other than 200 or 202.
var ErrMCPStatus = errors.New("MCP answer")

// CallMCPTool calls tool with args on the MCP server at url (streamable HTTP): initialize, the
// initialized notification, then tools/call in that session; it returns the tool's text.
func CallMCPTool(ctx context.Context, c *http.Client, url, tool string, args map[string]any) (string, error) {
	_, hdr, _, err := mcpPost(ctx, c, url, "", MCPRequest(1, "initialize", map[string]any{
		"protocolVersion": mcpProtocolVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "llm-infra-operator-load", "version": "0"},
	}))
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	session := hdr.Get(mcpSessionHeader)
	if session != "" {
		// The session ends with the call: a server keeps each one until told.
		defer endMCPSession(c, url, session)
	}
	if _, _, _, err := mcpPost(ctx, c, url, session, MCPRequest(0, "notifications/initialized", nil)); err != nil {
		return "", fmt.Errorf("initialized: %w", err)
	}
	ct, _, body, err := mcpPost(ctx, c, url, session, MCPRequest(2, "tools/call", map[string]any{"name": tool, "arguments": args}))
	if err != nil {
		return "", fmt.Errorf("tools/call %s: %w", tool, err)
	}
	return MCPToolResult(ct, body)
}

// mcpPost posts one JSON-RPC message in session (none before initialize) and returns the
// answer's content type, headers and body.
func mcpPost(ctx context.Context, c *http.Client, url, session string, msg []byte) (string, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(msg))
	if err != nil {
		return "", nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(mcpSessionHeader, session)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return "", nil, nil, fmt.Errorf("%w %d: %s", ErrMCPStatus, resp.StatusCode, bytes.TrimSpace(body))
	}
	return resp.Header.Get("Content-Type"), resp.Header, body, nil
}

// endMCPSession ends session (DELETE), whatever the call's outcome; a server that does not allow
// it (405) keeps the session until it expires, which is not the load's concern.
func endMCPSession(c *http.Client, url, session string) {
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		return
	}
	req.Header.Set(mcpSessionHeader, session)
	if resp, err := c.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
