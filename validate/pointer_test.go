package validate

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestFieldAt(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a":{"b":[10,{"c":"x"}],"n":null},"k.j":1}`), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		want   any
		wantOK bool
	}{
		{"a.b.0", 10.0, true},
		{"a.b.1.c", "x", true},
		{"a.n", nil, true},
		{"", doc, true},
		{".", doc, true},
		{"a.missing", nil, false},
		{"a.b.2", nil, false},
		{"a.b.-1", nil, false},
		{"a.b.x", nil, false},
		{"a.b.1.c.d", nil, false},
		{"k.j", nil, false}, // a dot always separates keys
	}
	for _, tt := range tests {
		got, ok := FieldAt(doc, tt.path)
		if ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("FieldAt(doc, %q) = %v, %t; want %v, %t", tt.path, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestInstanceAt(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a/b":{"~k":[1,2]},"e":{}}`), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr  string
		want any
	}{
		{"/a~1b/~0k/1", 2.0},
		{"/e", map[string]any{}},
		{"/a~1b/missing/0", nil},
		{"/a~1b/~0k/9", nil},
		{"", doc},
	}
	for _, tt := range tests {
		if got := instanceAt(doc, tt.ptr); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("instanceAt(doc, %q) = %v, want %v", tt.ptr, got, tt.want)
		}
	}
}
