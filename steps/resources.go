package steps

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// create sends a request and, on 2xx, remembers the response's id under role.
func (s *scenario) create(ctx context.Context, role, method, path string, body any) (*exchange, error) {
	ex, err := s.send(ctx, method, path, body, s.user)
	if err != nil {
		return nil, err
	}
	if ex.status >= 200 && ex.status <= 299 {
		if id, _ := lookupString(ex.doc, "id"); id != "" {
			s.ids[role], s.docs[role] = id, ex.doc
		}
	}
	return ex, nil
}

// given creates a resource a scenario needs and fails (with the evidence) if it could not.
func (s *scenario) given(ctx context.Context, role, method, path string, body any) error {
	ex, err := s.create(ctx, role, method, path, body)
	if err != nil {
		return err
	}
	if err := s.checkSuccess(ex); err != nil {
		return fmt.Errorf("setting up the %s: %w", role, err)
	}
	if _, ok := s.ids[role]; !ok {
		return s.fail(ex, "setting up the %s: no id in the response", role)
	}
	return nil
}

// fetch GETs a role's resource under a collection path prefix.
func (s *scenario) fetch(ctx context.Context, role, prefix string) error {
	id, err := s.id(role)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, "GET", prefix+"/"+id, nil, s.user)
	return err
}

func lookupString(doc any, path string) (string, bool) {
	v, ok := lookup(doc, path)
	str, isStr := v.(string)
	return str, ok && isStr
}

// setPath sets a dotted path ("item_data.0.quantity") in a JSON-like document.
func setPath(doc map[string]any, path string, value any) {
	keys := strings.Split(path, ".")
	var cur any = doc
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = value
				return
			}
			cur = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n >= len(c) {
				return
			}
			if last {
				c[n] = value
				return
			}
			cur = c[n]
		}
	}
}

// deletePath removes the last key of a dotted path.
func deletePath(doc map[string]any, path string) {
	parent, key := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent, key = path[:i], path[i+1:]
	}
	var p any = doc
	if parent != "" {
		p, _ = lookup(doc, parent)
	}
	if m, ok := p.(map[string]any); ok {
		delete(m, key)
	}
}

// filler returns a value n characters long suited to the field: digits for
// codes and postal codes, letters otherwise.
func filler(field string, n int) string {
	if strings.Contains(field, "postal") || strings.HasSuffix(field, "commodity_code") {
		return strings.Repeat("1234567890", n/10+1)[:n]
	}
	if strings.HasSuffix(field, "region") || strings.HasSuffix(field, "country") || strings.HasSuffix(field, "country_code") {
		return strings.Repeat("ABCDEFGHIJ", n/10+1)[:n]
	}
	return strings.Repeat("Conform-x", n/9+1)[:n]
}
