package steps

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
)

// TestCurlIsWholeAndReadsSecretsFromTheEnvironment: the curl of a check
// carries the body whole, however long, with every secret (a card number,
// a security code, a configured user's password in the body) replaced by
// its environment variable; the console prints it uncut after naming each
// variable, giving the values of the kit's own test data only.
func TestCurlIsWholeAndReadsSecretsFromTheEnvironment(t *testing.T) {
	long := strings.Repeat("x", 3000)
	tests := []struct {
		name     string
		body     string
		contains []string
		vars     []report.CurlVar
	}{
		{"a card", `{"number":"4895142232120006","security_code":"7391","name":"Jane O'Brien"}`,
			[]string{`"number":"'"$CONFORM_CARD_NUMBER"'"`, `"security_code":"'"$CONFORM_CARD_SECURITY_CODE"'"`, `"name":"Jane O'\''Brien"`},
			[]report.CurlVar{{Name: "CONFORM_CARD_NUMBER", Holds: "the card number sent", Value: "4895142232120006"},
				{Name: "CONFORM_CARD_SECURITY_CODE", Holds: "the card security code sent", Value: "7391"}}},
		{"a long body", `{"description":"` + long + `"}`, []string{long}, nil},
		{"a configured password in the body", `{"password":"s3cret-platform","note":"s3cret-platform again"}`,
			[]string{`"password":"'"$CONFORM_PASSWORD"'"`, `"note":"'"$CONFORM_PASSWORD"' again"`},
			[]report.CurlVar{{Name: "CONFORM_PASSWORD", Holds: "the password of the platform user of your config"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scenario{suite: &suite{cfg: Config{Credentials: Credentials{Platform: &Credential{Username: "u", Password: "s3cret-platform"}}}}}
			s.secrets = appendSecret(s.secrets, "s3cret-platform")
			ex := &exchange{method: "POST", path: "/x", url: "http://target/x", user: "platform", auth: authUser, reqType: "application/vnd.json+api", reqBody: []byte(tt.body)}
			curl, vars := s.curl(ex)
			for _, want := range tt.contains {
				assert.Contains(t, curl, want)
			}
			assert.NotContains(t, curl, "****")
			assert.NotContains(t, curl, "s3cret-platform")
			want := append([]report.CurlVar{{Name: "CONFORM_USER", Holds: "the platform user of your config"}, {Name: "CONFORM_PASSWORD", Holds: "its password"}}, tt.vars...)
			if tt.name == "a configured password in the body" {
				want = want[:2] // the credential's own variable, named once
			}
			assert.Equal(t, want, vars)

			var out bytes.Buffer
			printCurl(&out, report.Check{Curl: curl, CurlEnv: vars})
			require.Contains(t, out.String(), "        "+curl+"\n", "the curl whole")
			assert.NotContains(t, out.String(), "…")
			assert.Contains(t, out.String(), "# set CONFORM_USER (the platform user of your config), CONFORM_PASSWORD (its password)\n")
			for _, v := range tt.vars {
				if v.Value != "" {
					assert.Contains(t, out.String(), v.Name+"="+shellQuote(v.Value))
				}
			}
		})
	}
}

// TestConsoleLeavesAHugeCurlToTheResultsFile: a curl carrying a body of a
// mebibyte is not printed cut: the console says where it is whole.
func TestConsoleLeavesAHugeCurlToTheResultsFile(t *testing.T) {
	var out bytes.Buffer
	printCurl(&out, report.Check{Curl: "curl -sS --data-raw '" + strings.Repeat("x", 1100000) + "'"})
	assert.Equal(t, "      reproduce: a curl of 1074 KiB (its request body): in the results file (json:FILE) as the check's curl\n", out.String())
}
