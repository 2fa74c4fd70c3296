package explore

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The question of a webhook's state across updates: a webhook of the
// question's own made at one url of the explorer's receiver, its url
// changed to another, then another field updated (enabled, enabled_events),
// read back (each field the value last written), then an event triggered
// (a file created and uploaded: §6 names the alert of a file reaching
// UPLOADED as the one event tied to an operation). The event must not
// reach the url the webhook held before (§2.10: url receives events by
// POST; §6: the service sends the POST to the Webhook's url). Whether it
// reaches the new url rests on what the spec does not show (the review's
// time, enabled_events, retries), so only a delivery to the former url is
// judged; none within the wait judges nothing.
//
// A second webhook of the question's own, made at a third url before the
// file and then disabled (§2.10, §4.9: enabled false disables), must not
// get the file's event: a silence is proved without an open-ended wait,
// by a control as the suite's (steps/webhooks_silence.go): once the moved
// webhook, enabled, got the event, the disabled one must not have it. A
// target whose stray delivery comes after the control's can only be
// missed, never failed: a conformant target sends it nothing.

// The checks of the webhook question.
const (
	checkDelivered = "an event goes to the webhook's url"
	checkDisabled  = "a disabled webhook gets no event"
)

var (
	basisDelivery = saying(basisOf("2.10", "6"), "url: receives events by POST (§2.10); when an event is triggered, the service sends an HTTP POST with the payload to the Webhook's url (§6)")
	basisDisabled = saying(basisOf("2.10", "4.9", "6"), "enabled: false disables (§2.10, §4.9); when an event is triggered, the service sends an HTTP POST with the payload to the Webhook's url (§6): to a webhook that is enabled")
)

// How long the webhook question waits for the file's review and its event
// (the receiver looked at every pollEvery): it judges only a delivery that
// arrived, so a slow target costs the wait, never a finding.
const (
	eventWait = 12 * time.Second
	pollEvery = 50 * time.Millisecond
)

// questionPath marks the receiver's paths of the questions' own urls: only
// deliveries there are kept.
const questionPath = "/explore/q/"

// await is what a question waits for: the event of the file it uploaded,
// delivered to the webhook's former url (a finding) or its new one, the
// control; no delivery of it may reach Disabled.
type await struct {
	Webhook, File  string // roles
	Former, Latest string // the urls' paths below questionPath
	// Disabled is the path of the disabled webhook's url ("" for none) and
	// Off its role.
	Disabled, Off string `json:",omitempty"`
}

// deliveries are the bodies the receiver took at the questions' urls, by
// path. Safe for concurrent use.
type deliveries struct {
	mu     sync.Mutex
	byPath map[string][]string
}

// take reads a delivery; one to a question's url is kept.
func (d *deliveries) take(req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	i := strings.Index(req.URL.Path, questionPath)
	if i < 0 {
		return
	}
	key := req.URL.Path[i+len(questionPath):]
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byPath == nil {
		d.byPath = map[string][]string{}
	}
	if len(d.byPath[key]) < 64 {
		d.byPath[key] = append(d.byPath[key], string(body))
	}
}

// holding reports whether a delivery to path carries text.
func (d *deliveries) holding(path, text string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range d.byPath[path] {
		if strings.Contains(b, text) {
			return true
		}
	}
	return false
}

// queueEventQuestion adds the webhook question for a webhook the step
// made, where the target offers what it needs and the question's urls fit
// the 120 characters §8 allows.
func (g *generator) queueEventQuestion(st Step) {
	if st.Op != "webhooks.create" || st.Save == "" || g.hookBase == "" {
		return
	}
	for _, op := range []string{"webhooks.update", "webhooks.get", "files.create", "files.upload", "files.get"} {
		if !g.offers(op) {
			return
		}
	}
	w := g.newRole("webhook")
	n := len(g.roles["webhook"])
	former, latest, silent := fmt.Sprintf("%s-%d-a", g.seq, n), fmt.Sprintf("%s-%d-b", g.seq, n), fmt.Sprintf("%s-%d-c", g.seq, n)
	urlA, urlB, urlC := g.hookBase+questionPath+former, g.hookBase+questionPath+latest, g.hookBase+questionPath+silent
	if len(urlC) > 120 {
		return
	}
	path := "/webhooks/{" + w + "}"
	create := Step{Op: "webhooks.create", Method: "POST", Path: "/webhooks", Save: w, Question: checkDelivered,
		Body:   fmt.Sprintf(`{"url":%q}`, urlA),
		Expect: []expectField{{Path: "url", Value: urlA, Check: checkReadBack, Basis: basisWebhook}}}
	moved := Step{Op: "webhooks.update", Method: "PUT", Path: path, Of: w, Question: checkDelivered,
		Body:   fmt.Sprintf(`{"url":%q}`, urlB),
		Expect: []expectField{{Path: "url", Value: urlB, Check: checkReadBack, Basis: basisWebhook}}}
	// A second update of other fields: the url keeps the value last written.
	again := Step{Op: "webhooks.update", Method: "PUT", Path: path, Of: w, Question: checkDelivered,
		Body:   `{"enabled":true,"enabled_events":[]}`,
		Expect: []expectField{{Path: "enabled", Value: true, Check: checkReadBack, Basis: basisWebhook}}}
	read := Step{Op: "webhooks.get", Method: "GET", Path: path, Of: w, Question: checkDelivered}
	// The webhook to disable, at a url of its own.
	off := g.laterRole("webhook", 1)
	offPath := "/webhooks/{" + off + "}"
	makeOff := Step{Op: "webhooks.create", Method: "POST", Path: "/webhooks", Save: off, Question: checkDisabled,
		Body:   fmt.Sprintf(`{"url":%q}`, urlC),
		Expect: []expectField{{Path: "url", Value: urlC, Check: checkReadBack, Basis: basisWebhook}}}
	disable := Step{Op: "webhooks.update", Method: "PUT", Path: offPath, Of: off, Question: checkDisabled,
		Body:   `{"enabled":false}`,
		Expect: []expectField{{Path: "enabled", Value: false, Check: checkReadBack, Basis: basisWebhook}}}
	file := g.newRole("file")
	makeFile := Step{Op: "files.create", Method: "POST", Path: "/files", Save: file, Question: checkDelivered,
		Body: `{"display_name":"explore-event.pdf","linked_to":"{fixture:merchant}","type":"BANK_STATEMENT"}`}
	ctype, body := multipart("event.pdf", "%PDF-1.4 explore event")
	upload := Step{Op: "files.upload", Method: "POST", Path: "/files/{" + file + "}/upload", ContentType: ctype, Body: body, Of: file, Question: checkDelivered}
	wait := Step{Op: "files.get", Method: "POST", Path: "/files/{" + file + "}", Of: file, Question: checkDelivered,
		Await: &await{Webhook: w, File: file, Former: former, Latest: latest, Disabled: silent, Off: off}}
	g.ask(rare, create, moved, again, read, makeOff, disable, makeFile, upload, wait)
}

// laterRole is the role of kind k places after newRole's: the name the
// k-th create after the next one saves (roles are named as made).
func (g *generator) laterRole(kind string, k int) string {
	n := len(g.roles[kind]) + k
	if n == 0 {
		return kind
	}
	return fmt.Sprintf("%s %c", kind, 'a'+n)
}

// awaitEvent waits, on the target alone, for the event of the file the
// question uploaded at the webhook's former or latest url (its review
// ends on the target's own time), then fetches the file once, the
// scenario's last request: a delivery to the former url is a finding, and
// so is one to the disabled webhook's url. It sends no requests while it
// waits, so a seed sends the same requests whatever the target's pace.
// The sequence ends there: the model's review takes longer than the run.
func (r *runner) awaitEvent(ctx context.Context, st Step, target *side) (*Finding, []Exchange, bool, error) {
	a := st.Await
	id := target.ids[a.File]
	if id == "" {
		return nil, nil, false, nil
	}
	deadline := r.waitUntil(eventWait)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	former := false
	for !former && !r.deliveries.holding(a.Latest, id) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, nil, false, nil
		case <-tick.C:
		}
		former = r.deliveries.holding(a.Former, id)
	}
	routed := r.routed(st)
	ex, err := target.send(ctx, routed, routed.Path)
	r.requests.Add(1)
	if err != nil {
		return nil, nil, false, err
	}
	if !former {
		if f := r.silenced(st, a, target); f != nil {
			return f, []Exchange{ex}, false, nil
		}
		return nil, []Exchange{ex}, false, nil
	}
	return r.finding(checkDelivered, st, basisDelivery,
		fmt.Sprintf("the event of the %s, uploaded after the %s's url was changed, was delivered to its former url (%s)", a.File, a.Webhook, questionPath+a.Former),
		"a delivery to "+questionPath+a.Latest+" only", "a delivery to "+questionPath+a.Former, "the request succeeds"), []Exchange{ex}, false, nil
}

// waitUntil is when a wait of d from now ends: at the latest when the
// run's time ends new work (--time keeps its bound).
func (r *runner) waitUntil(d time.Duration) time.Time {
	end := time.Now().Add(d)
	if !r.hardDeadline.IsZero() && r.hardDeadline.Before(end) {
		return r.hardDeadline
	}
	return end
}

// silenced judges the disabled webhook's url: no delivery of the file's
// event reached it.
func (r *runner) silenced(st Step, a *await, target *side) *Finding {
	if a.Disabled == "" || !r.deliveries.holding(a.Disabled, target.ids[a.File]) {
		return nil
	}
	return r.finding(checkDisabled, st, basisDisabled,
		fmt.Sprintf("the event of the %s, uploaded after the %s was disabled (enabled false, read back), was delivered to its url (%s)", a.File, a.Off, questionPath+a.Disabled),
		"no delivery to "+questionPath+a.Disabled, "a delivery to "+questionPath+a.Disabled, "the request succeeds")
}
