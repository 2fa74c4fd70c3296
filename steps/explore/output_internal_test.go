package explore

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrintedIdempotencyIDsAreFresh: a printed scenario and script send
// idempotency ids of their own run (the suite's {run_id}, the script's
// $RUN), equal ids staying equal; the last request states its status
// before a field it asserts.
func TestPrintedIdempotencyIDsAreFresh(t *testing.T) {
	body := `{"amount":5,"idempotency_id":"explore-abc-7-3-1","tags":{"idempotency_id":"x"}}`
	st := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Body: body, Save: "sale"}
	f := Finding{Check: checkReadBack, Op: st.Op, assert: `the response field "amount" is 5`,
		Trace: []Exchange{
			{Step: st, User: userPlatform, Method: "POST", Path: "/transfers", Body: body, Status: 201},
			{Step: st, User: userPlatform, Method: "POST", Path: "/transfers", Body: body, Status: 201},
		}}
	g := gherkin(f)
	assert.Contains(t, g, `"idempotency_id":"{run_id}-explore-abc-7-3-1"`)
	assert.NotContains(t, g, `"idempotency_id":"explore-abc`)
	assert.Contains(t, g, `"tags":{"idempotency_id":"{run_id}-x"}`, "every member so named")
	assert.Contains(t, g, "    Then the request succeeds\n    And the response field \"amount\" is 5\n")
	r := &runner{}
	c := r.curl(f)
	assert.Contains(t, c, `"idempotency_id":"'"$RUN"'-explore-abc-7-3-1"`)
	assert.Contains(t, c, `RUN="${CONFORM_RUN_ID:-`)
}

// TestReplayScriptQuotesEveryBody: the replay script quotes each body for
// the shell whatever it holds (a quote as in O'Brien, a backslash, a $,
// CR LF line ends): bash -n and sh -n parse it, and run against a server
// it sends each body byte for byte, the created id and $RUN spliced in.
func TestReplayScriptQuotesEveryBody(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		want              func(run string) string // the body the server must receive
	}{
		{"a quote", "application/vnd.json+api", `{"name":"Jane O'Brien","merchant":"{merchant}"}`,
			func(string) string { return `{"name":"Jane O'Brien","merchant":"MU1"}` }},
		{"quotes, backslash, dollar", "application/vnd.json+api", `{"name":"'it''s' \\ $HOME ` + "`id`" + `","idempotency_id":"explore-1"}`,
			func(run string) string {
				return `{"name":"'it''s' \\ $HOME ` + "`id`" + `","idempotency_id":"` + run + `-explore-1"}`
			}},
		{"CR LF", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"O'Brien.txt\"\r\n\r\nx\r\n--b--\r\n",
			func(string) string {
				return "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"O'Brien.txt\"\r\n\r\nx\r\n--b--\r\n"
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = append(got, string(b))
				mu.Unlock()
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(`{"id":"MU1"}`))
			}))
			t.Cleanup(srv.Close)
			create := Step{Op: "merchants.create", Method: "POST", Path: "/merchants", Body: `{"x":1}`, Save: "merchant"}
			st := Step{Op: "files.create", Method: "POST", Path: "/files", Body: tt.body}
			f := Finding{Check: checkServerError, Op: st.Op, Message: "a message\non two lines",
				Trace: []Exchange{
					{Step: create, User: userPlatform, Method: "POST", Path: "/merchants", ContentType: "application/vnd.json+api", Body: create.Body, Status: 201},
					{Step: st, User: userPlatform, Method: "POST", Path: "/files", ContentType: tt.ctype, Body: tt.body, Status: 500},
				}}
			r := &runner{}
			script := r.curl(f)
			file := filepath.Join(t.TempDir(), "replay.sh")
			require.NoError(t, os.WriteFile(file, []byte(script), 0o700))
			for _, shell := range []string{"bash", "sh"} {
				out, err := exec.Command(shell, "-n", file).CombinedOutput()
				require.NoError(t, err, "%s -n: %s\n%s", shell, out, script)
			}
			if _, err := exec.LookPath("curl"); err != nil {
				t.Skip("curl not installed: the script is parsed, not run")
			}
			if _, err := exec.LookPath("jq"); err != nil {
				t.Skip("jq not installed: the script is parsed, not run")
			}
			cmd := exec.Command("sh", file)
			cmd.Env = append(os.Environ(), "CONFORM_TARGET="+srv.URL, "CONFORM_USER=u", "CONFORM_PASSWORD=p", "CONFORM_RUN_ID=r9")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s\n%s", out, script)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 2, "%s", out)
			assert.Equal(t, tt.want("r9"), got[1], "the body as the finding sent it\n%s", script)
		})
	}
}

// TestScenarioSetsEachMerchantOnce: a printed scenario sets a merchant's
// Level 2/3 processing where the target's differed from what the scenario
// last set, not at every note of it: a note showing the same sets nothing.
func TestScenarioSetsEachMerchantOnce(t *testing.T) {
	note := func(key string, on bool) Exchange {
		return Exchange{Step: Step{Op: "merchants.get", Method: "GET", Path: "/merchants/{fixture:" + key + "}"}, Page: true, Status: 200,
			doc: map[string]any{"level_two_level_three_data_enabled": on}}
	}
	sale := Step{Op: "transfers.create", Method: "POST", Path: "/transfers", Body: `{"merchant":"{fixture:merchant}","additional_purchase_data":{}}`}
	req := Exchange{Step: sale, User: userPlatform, Method: "POST", Path: "/transfers", Body: sale.Body, Status: 201}
	tests := []struct {
		name  string
		trace []Exchange
		puts  int
	}{
		{"the prelude only", []Exchange{note("merchant", true), note("plain_merchant", false), req}, 2},
		{"a note showing the same", []Exchange{note("merchant", true), note("plain_merchant", false), note("merchant", true), req}, 2},
		{"a note showing a change", []Exchange{note("merchant", true), note("plain_merchant", false), note("merchant", false), req}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := gherkin(Finding{Check: checkServerError, Op: sale.Op, assert: "the request succeeds", Trace: tt.trace})
			assert.Equal(t, tt.puts, strings.Count(g, "When I PUT \"/merchants/"), "%s", g)
		})
	}
}

// TestCaptureTransferFetchPrinted: the fetch of a capture's transfer is
// printed as the suite's step that fetches the transfer the last answer
// names, and the script takes the capture answer's transfer for it; a
// capture whose transfer is not fetched later is printed as any request.
func TestCaptureTransferFetchPrinted(t *testing.T) {
	capture := Step{Op: "authorizations.capture", Method: "PUT", Path: "/authorizations/{authorization b}", Body: `{"capture_amount":5}`, Of: "authorization b"}
	read := Step{Op: "authorizations.get", Method: "GET", Path: "/authorizations/{authorization b}", Of: "authorization b"}
	get := Step{Op: "transfers.get", Method: "GET", Path: "/transfers/{capture transfer b}", Of: "capture transfer b"}
	for _, tc := range []struct {
		name        string
		trace       []Exchange
		gherkin     []string
		script      []string
		notInScript string
	}{
		{"fetched after the read",
			[]Exchange{
				{Step: capture, User: userPlatform, Method: "PUT", Path: "/authorizations/AU1", Body: capture.Body, Status: 200},
				{Step: read, User: userPlatform, Method: "GET", Path: "/authorizations/AU1", Status: 200},
				{Step: get, User: userPlatform, Method: "GET", Path: "/transfers/TR1", Status: 500},
			},
			[]string{"    When I GET \"/authorizations/{authorization b}\"\n    Then the request succeeds\n    When I fetch the transfer of the capture\n    Then the request succeeds\n"},
			[]string{`capture_transfer_b=$(curl `, ` | jq -r .transfer)`, `'/transfers/'"${capture_transfer_b}"`},
			"{capture transfer b}"},
		{"not fetched",
			[]Exchange{
				{Step: capture, User: userPlatform, Method: "PUT", Path: "/authorizations/AU1", Body: capture.Body, Status: 200},
				{Step: read, User: userPlatform, Method: "GET", Path: "/authorizations/AU1", Status: 500},
			},
			[]string{"    When I PUT \"/authorizations/{authorization b}\" with the body:\n"},
			[]string{`-X GET "$T"'/authorizations/`},
			"jq -r .transfer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Finding{Check: checkServerError, Op: tc.trace[len(tc.trace)-1].Step.Op, assert: "the request succeeds", Trace: tc.trace}
			g := gherkin(f)
			for _, want := range tc.gherkin {
				assert.Contains(t, g, want)
			}
			r := &runner{}
			c := r.curl(f)
			for _, want := range tc.script {
				assert.Contains(t, c, want)
			}
			assert.NotContains(t, c, tc.notInScript)
		})
	}
}
