package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/conform-kit/conform/steps/report"
)

// curlEnv collects the environment variables a curl reads its secrets from.
type curlEnv struct {
	vars  []report.CurlVar
	byVal map[string]string // a secret value → the name of its variable
}

// curlPlaceholder stands for variable name in a body until the body is
// quoted for the shell.
func curlPlaceholder(name string) string { return "@@conform-env:" + name + "@@" }

// add names the variable of a secret value and returns its placeholder; the
// same value is always the same variable, and a name already taken by
// another value gets a suffix (_2, _3…).
func (e *curlEnv) add(name, holds, value, public string) string {
	if n, ok := e.byVal[value]; ok {
		return curlPlaceholder(n)
	}
	base := name
	for i := 2; e.taken(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	if e.byVal == nil {
		e.byVal = map[string]string{}
	}
	e.byVal[value] = name
	e.vars = append(e.vars, report.CurlVar{Name: name, Holds: holds, Value: public})
	return curlPlaceholder(name)
}

func (e *curlEnv) taken(name string) bool {
	for _, v := range e.vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

// curlKeyVar names the variable of a secret JSON key and what it holds.
func curlKeyVar(key string) (name, holds string, ok bool) {
	switch key {
	case "number":
		return "CONFORM_CARD_NUMBER", "the card number sent", true
	case "security_code":
		return "CONFORM_CARD_SECURITY_CODE", "the card security code sent", true
	case "password":
		return "CONFORM_BODY_PASSWORD", "the password sent in the body", true
	case "secret_signing_key":
		return "CONFORM_SECRET_SIGNING_KEY", "the signing key sent", true
	case "api_key":
		return "CONFORM_API_KEY", "the API key sent", true
	case "third_party_token":
		return "CONFORM_THIRD_PARTY_TOKEN", "the third-party token sent", true
	}
	return "", "", false
}

// secretVar names the variable of a secret value: a configured user's
// password is that user's CONFORM_* password variable (its value never
// given); any other is the kit's own test data, given with its value.
func (s *scenario) secretVar(env *curlEnv, key, value string) string {
	for _, role := range []string{"platform", "merchant", "other_application"} {
		if c := s.suite.cfg.credential(role); c != nil && c.Password == value {
			_, pw := credentialEnv(role)
			name := strings.TrimPrefix(pw, "$")
			if env.taken(name) {
				return curlPlaceholder(name) // the password of the request's own credentials
			}
			return env.add(name, "the password of the "+role+" user of your config", value, "")
		}
	}
	if name, holds, ok := curlKeyVar(key); ok {
		return env.add(name, holds, value, value)
	}
	return env.add("CONFORM_SECRET", "a secret the kit sent", value, value)
}

// curl reproduces an exchange's request whole: the credentials as the
// CONFORM_* variables conform run reads, and every secret of the body (a
// card number, a security code, a password) from an environment variable,
// each named with what it holds in the returned list.
func (s *scenario) curl(ex *exchange) (string, []report.CurlVar) {
	var b strings.Builder
	s.curlRequest(&b, "curl -sS", ex)
	var env curlEnv
	if ex.auth != authNone && s.suite.cfg.credential(ex.user) != nil {
		user, pw := credentialEnv(ex.user)
		env.vars = append(env.vars, report.CurlVar{Name: strings.TrimPrefix(user, "$"), Holds: "the " + ex.user + " user of your config"})
		if ex.auth != authWrongPassword {
			env.vars = append(env.vars, report.CurlVar{Name: strings.TrimPrefix(pw, "$"), Holds: "its password"})
		}
	}
	if ex.reqType != "" {
		fmt.Fprintf(&b, " -H %s --data-raw %s", shellQuote("Content-Type: "+ex.reqType), s.curlBody(ex.reqBody, &env))
	}
	return b.String(), env.vars
}

// curlBody is a request body quoted for the shell, each secret replaced by
// a reference to its environment variable.
func (s *scenario) curlBody(data []byte, env *curlEnv) string {
	out := string(data)
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if len(data) > 0 && dec.Decode(&doc) == nil {
		if b, err := json.Marshal(s.envDoc(doc, env)); err == nil {
			out = string(b)
		}
	}
	for _, sec := range s.secrets {
		if strings.Contains(out, sec) {
			out = strings.ReplaceAll(out, sec, s.secretVar(env, "", sec))
		}
	}
	quoted := shellQuote(out)
	for _, v := range env.vars {
		quoted = strings.ReplaceAll(quoted, curlPlaceholder(v.Name), `'"$`+v.Name+`"'`)
	}
	return quoted
}

// envDoc is doc with the string value of every secret key replaced by the
// placeholder of its variable.
func (s *scenario) envDoc(doc any, env *curlEnv) any {
	switch d := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(d))
		for _, k := range slices.Sorted(maps.Keys(d)) {
			v := d[k]
			if str, isStr := v.(string); isStr && secretKeys(k) && str != "" {
				m[k] = s.secretVar(env, k, str)
				continue
			}
			m[k] = s.envDoc(v, env)
		}
		return m
	case []any:
		l := make([]any, len(d))
		for i, v := range d {
			l[i] = s.envDoc(v, env)
		}
		return l
	}
	return doc
}
