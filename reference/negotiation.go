package reference

import (
	"fmt"
	"mime"
)

// Content negotiation: the media type of every response and the parsing of
// media-type headers. Which media types a request may declare and which
// Accept headers admit JSON are the validator's (validate.JSONMediaType,
// validate.AcceptsJSON): one list for the whole kit.

// halJSON is the content type of every JSON response.
const halJSON = "application/hal+json"

// mimeParams parses a header such as Content-Disposition.
func mimeParams(v string) (string, map[string]string, error) {
	d, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", nil, fmt.Errorf("parse %q: %w", v, err)
	}
	return d, params, nil
}
