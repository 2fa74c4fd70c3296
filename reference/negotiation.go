package reference

import (
	"fmt"
	"mime"
	"strconv"
	"strings"
)

// Content negotiation: the media types a request may declare and a response
// may take, and the parsing of media-type headers.

// halJSON is the content type of every JSON response.
const halJSON = "application/hal+json"

// requestMediaTypes are the JSON content types a request body may declare.
var requestMediaTypes = [...]string{
	"application/json", "application/vnd.api+json", "application/vnd.json+api", "application/hal+json",
}

func isJSONMediaType(mt string) bool {
	for _, t := range requestMediaTypes {
		if mt == t {
			return true
		}
	}
	return false
}

// acceptsJSON reports whether an Accept header admits a JSON type we produce.
// A media range with q=0 (RFC 9110 12.5.1: "not acceptable") admits nothing.
func acceptsJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || refused(params["q"]) {
			continue
		}
		if mt == "*/*" || mt == "application/*" || isJSONMediaType(mt) {
			return true
		}
	}
	return false
}

// refused reports whether a q parameter is zero ("0", "0.0", "0.000").
func refused(q string) bool {
	if q == "" {
		return false
	}
	v, err := strconv.ParseFloat(q, 64)
	return err == nil && v == 0
}

// mimeParams parses a header such as Content-Disposition.
func mimeParams(v string) (string, map[string]string, error) {
	d, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", nil, fmt.Errorf("parse %q: %w", v, err)
	}
	return d, params, nil
}
