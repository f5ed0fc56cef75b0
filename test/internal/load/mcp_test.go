package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestParseMCPTools(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
		wantErr    string
	}{
		{"two tools", `{"object":"list","data":[{"name":"mcp_echo","server":"s"},{"name":"mcp_add"}]}`, []string{"mcp_echo", "mcp_add"}, ""},
		{"none discovered", `{"object":"list","data":[]}`, []string{}, ""},
		{"not exposed", `{"error":"mcp tools endpoint is not exposed"}`, nil, "no data"},
		{"not JSON", `<html>`, nil, "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMCPTools([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || len(got) != len(tc.want) {
				t.Errorf("tools %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMCPRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     int
		method string
		params any
		want   string
	}{
		{"request", 2, "tools/call", map[string]any{"name": "echo"}, `{"id":2,"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`},
		{"notification has no id", 0, "notifications/initialized", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(MCPRequest(tc.id, tc.method, tc.params)); got != tc.want {
				t.Errorf("MCPRequest = %s, want %s", got, tc.want)
			}
		})
	}
}

// mcpServer is a streamable HTTP MCP server with one tool, echo, as the MCP package the suite
// runs has: it answers in JSON or as an event stream (sse), checks the session of every message
// after initialize, and counts the sessions ended.
type mcpServer struct {
	sse bool
	// tool answers tools/call's arguments with a JSON-RPC result or error (the message's tail).
	tool  func(args map[string]any) string
	mu    sync.Mutex
	calls []string
	ended int
}

const testSession = "session-1"

func (s *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		s.mu.Lock()
		s.ended++
		s.mu.Unlock()
		return
	}
	var msg struct {
		ID     int             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &msg); err != nil || !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, msg.Method)
	s.mu.Unlock()
	if msg.Method != "initialize" && r.Header.Get(mcpSessionHeader) != testSession {
		http.Error(w, "no valid session", http.StatusBadRequest)
		return
	}
	var tail string
	switch msg.Method {
	case "initialize":
		w.Header().Set(mcpSessionHeader, testSession)
		tail = `"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"test"}}`
	case "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
		return
	case "tools/call":
		var p struct {
			Name      string
			Arguments map[string]any
		}
		_ = json.Unmarshal(msg.Params, &p)
		tail = s.tool(p.Arguments)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, msg.ID, tail)
	if s.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, answer)
}

func echoTool(args map[string]any) string {
	return fmt.Sprintf(`"result":{"content":[{"type":"text","text":"Echo: %s"}]}`, args["message"])
}

func TestCallMCPTool(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sse     bool
		tool    func(map[string]any) string
		want    string
		wantErr string
	}{
		{"JSON answer", false, echoTool, "Echo: hello", ""},
		{"event-stream answer", true, echoTool, "Echo: hello", ""},
		{"JSON-RPC error", true, func(map[string]any) string { return `"error":{"code":-32602,"message":"unknown tool"}` }, "", "JSON-RPC error -32602: unknown tool"},
		{"the tool failed", false, func(map[string]any) string {
			return `"result":{"isError":true,"content":[{"type":"text","text":"bad message"}]}`
		}, "", "the tool failed: bad message"},
		{"no text", false, func(map[string]any) string { return `"result":{"content":[{"type":"image","data":"AA=="}]}` }, "", "no text content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &mcpServer{sse: tc.sse, tool: tc.tool}
			srv := httptest.NewServer(s)
			defer srv.Close()
			got, err := CallMCPTool(context.Background(), srv.Client(), srv.URL+"/mcp", "echo", map[string]any{"message": "hello"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("CallMCPTool = %q, %v; want %q", got, err, tc.want)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if want := []string{"initialize", "notifications/initialized", "tools/call"}; fmt.Sprint(s.calls) != fmt.Sprint(want) {
				t.Errorf("messages %v, want %v", s.calls, want)
			}
			if s.ended != 1 {
				t.Errorf("sessions ended %d, want 1", s.ended)
			}
		})
	}
}

func TestCallMCPToolStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream gone", http.StatusBadGateway)
	}))
	defer srv.Close()
	_, err := CallMCPTool(context.Background(), srv.Client(), srv.URL, "echo", nil)
	if !errors.Is(err, ErrMCPStatus) || !strings.Contains(err.Error(), "initialize: MCP answer 502: upstream gone") {
		t.Fatalf("error %v, want initialize's 502 (ErrMCPStatus)", err)
	}
}
