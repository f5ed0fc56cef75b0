// Package live drives the local cluster the bench and the reliability suites run on: the
// apiserver's audit log, the operator as a local process (hack/lib/operator.sh), polling.
package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// AuditEvent is the part of a kube-apiserver audit event (audit.k8s.io/v1, Metadata level) the
// bench reads.
type AuditEvent struct {
	AuditID   string `json:"auditID"`
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	URI       string `json:"requestURI"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
	Done     time.Time `json:"stageTimestamp"`
}

// Request classes. A "write" changes stored state; events, leases and the delegated
// authentication/authorization reviews of the operator's own HTTPS server are counted apart.
const (
	ClassRead   = "read"
	ClassWrite  = "write"
	ClassLease  = "lease"
	ClassEvent  = "event"
	ClassReview = "review"
)

var WriteVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

func (e *AuditEvent) Resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	return e.ObjectRef.Resource
}

func (e *AuditEvent) Class() string {
	res := e.Resource()
	switch {
	case res == "leases" && e.ObjectRef.APIGroup == "coordination.k8s.io":
		return ClassLease
	case res == "events":
		return ClassEvent
	case strings.HasSuffix(res, "reviews"):
		return ClassReview
	case WriteVerbs[e.Verb]:
		return ClassWrite
	default:
		return ClassRead
	}
}

func (e *AuditEvent) Code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

func (e *AuditEvent) OK() bool { c := e.Code(); return c >= 200 && c < 300 }

// describe is one line of evidence: verb, object, response code.
func (e *AuditEvent) Describe() string {
	if e.ObjectRef == nil {
		return fmt.Sprintf("%s %s -> %d", e.Verb, e.URI, e.Code())
	}
	o := e.ObjectRef
	res := o.Resource
	if o.APIGroup != "" {
		res += "." + o.APIGroup
	}
	if o.Subresource != "" {
		res += "/" + o.Subresource
	}
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + name
	}
	return fmt.Sprintf("%s %s %s -> %d", e.Verb, res, name, e.Code())
}

// AuditLog follows the apiserver's JSON audit log. Each request is kept once: a watch when it
// starts (ResponseStarted), every other request when it completes (ResponseComplete).
type AuditLog struct {
	path string

	mu      sync.Mutex
	offset  int64
	partial []byte
	events  []*AuditEvent
	// watchEnds is when each watch ended (its ResponseComplete), by audit ID: a watch started
	// and not ended is open (OpenWatches).
	watchEnds map[string]time.Time
}

func NewAuditLog(path string) (*AuditLog, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	a := &AuditLog{path: path, watchEnds: map[string]time.Time{}}
	return a, a.Sync()
}

// sync reads what the apiserver appended since the last call.
func (a *AuditLog) Sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	a.offset += int64(len(data))
	data = append(a.partial, data...)
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		a.partial = data
		return nil
	}
	a.partial = append([]byte(nil), data[last+1:]...)
	for _, line := range bytes.Split(data[:last], []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		e := &AuditEvent{}
		if err := json.Unmarshal(line, e); err != nil {
			continue
		}
		if e.Verb == "watch" {
			if e.Stage == "ResponseComplete" || e.Stage == "Panic" {
				a.watchEnds[e.AuditID] = e.Done
			}
			if e.Stage != "ResponseStarted" {
				continue
			}
		} else if e.Stage != "ResponseComplete" && e.Stage != "Panic" {
			continue
		}
		a.events = append(a.events, e)
	}
	return nil
}

// query returns the requests of user received in [from, to) that match keep (nil keeps all).
// It first waits a moment and re-reads the log, so requests completed just before the call
// are included.
func (a *AuditLog) Query(user string, from, to time.Time, keep func(*AuditEvent) bool) []*AuditEvent {
	time.Sleep(300 * time.Millisecond)
	_ = a.Sync()
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*AuditEvent
	for _, e := range a.events {
		if e.User.Username != user || e.Received.Before(from) || !e.Received.Before(to) {
			continue
		}
		if keep == nil || keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// lastWrite is when user's last write (class write) completed, or the zero time.
func (a *AuditLog) LastWrite(user string, since time.Time) time.Time {
	_ = a.Sync()
	a.mu.Lock()
	defer a.mu.Unlock()
	var last time.Time
	for i := len(a.events) - 1; i >= 0; i-- {
		e := a.events[i]
		if e.User.Username == user && e.Class() == ClassWrite && !e.Received.Before(since) {
			if e.Done.After(last) {
				last = e.Done
			}
		}
	}
	return last
}

// Counts is a breakdown of requests by class.
type Counts struct {
	Total, Reads, Writes, FailedWrites, Leases, Events, Reviews int
	// APIReads are the reads that fetch objects (get, list); Watches the watches started
	// (informers renew theirs every 5-10 minutes).
	APIReads, Watches int
	// WriteLines is each write in order with its time relative to the window start;
	// APIReadLines each API read.
	WriteLines, APIReadLines []string
	// ByKind Counts writes by "verb resource[/subresource]".
	ByKind map[string]int
}

func Summarize(events []*AuditEvent, from time.Time) Counts {
	c := Counts{ByKind: map[string]int{}}
	for _, e := range events {
		c.Total++
		switch e.Class() {
		case ClassRead:
			c.Reads++
			if e.Verb == "watch" {
				c.Watches++
			}
			if e.Verb == "get" || e.Verb == "list" {
				c.APIReads++
				c.APIReadLines = append(c.APIReadLines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(from).Seconds(), e.Describe()))
			}
		case ClassLease:
			c.Leases++
		case ClassEvent:
			c.Events++
		case ClassReview:
			c.Reviews++
		case ClassWrite:
			c.Writes++
			if !e.OK() {
				c.FailedWrites++
			}
			key := e.Verb + " " + e.Resource()
			if e.ObjectRef != nil && e.ObjectRef.Subresource != "" {
				key += "/" + e.ObjectRef.Subresource
			}
			c.ByKind[key]++
			c.WriteLines = append(c.WriteLines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(from).Seconds(), e.Describe()))
		}
	}
	return c
}

func (c Counts) ByKindString() string {
	keys := make([]string, 0, len(c.ByKind))
	for k := range c.ByKind {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s x%d", k, c.ByKind[k]))
	}
	return strings.Join(parts, ", ")
}

// Since returns, at once, the requests of user received since from that match keep (nil keeps
// all), as far as the log has them now: for polling while something runs.
func (a *AuditLog) Since(user string, from time.Time, keep func(*AuditEvent) bool) []*AuditEvent {
	_ = a.Sync()
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*AuditEvent
	for _, e := range a.events {
		if e.User.Username == user && !e.Received.Before(from) && (keep == nil || keep(e)) {
			out = append(out, e)
		}
	}
	return out
}

// OpenWatches counts user's watches open at the moment at (started before it, not ended by
// then), by what they watch: "<resource>[.<group>]", with " (one object)" for a watch narrowed
// to one name by a field selector (an informer of one object, e.g. a referenced Secret).
func (a *AuditLog) OpenWatches(user string, at time.Time) map[string]int {
	_ = a.Sync()
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	for _, e := range a.events {
		if e.Verb != "watch" || e.User.Username != user || !e.Received.Before(at) {
			continue
		}
		if end, ok := a.watchEnds[e.AuditID]; ok && !end.After(at) {
			continue
		}
		out[WatchTarget(e)]++
	}
	return out
}

// WatchTarget names what a watch request watches, as OpenWatches counts it.
func WatchTarget(e *AuditEvent) string {
	what := e.Resource()
	if e.ObjectRef != nil && e.ObjectRef.APIGroup != "" {
		what += "." + e.ObjectRef.APIGroup
	}
	if strings.Contains(e.URI, "fieldSelector=metadata.name") {
		what += " (one object)"
	}
	return what
}
