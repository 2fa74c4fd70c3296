package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// Decoding validated request bodies into the typed inputs, with the number
// normalisation JSON Schema's idea of an integer needs.

// decodeBody decodes a validated JSON body into dst, numbers as json.Number
// inside untyped values (additional_purchase_data needs them for the rules).
// JSON Schema counts 1.0 and 1e3 as integers, so a typed field that refuses
// such a number gets it again in integer form. A number no int64 can hold
// (99999999999999999999, 1e30) is 422 INVALID_FIELD at its pointer, not a
// 400: the body is JSON of the right shape with a value out of range.
func decodeBody(body []byte, dst any) error {
	err := decodeNumbers(body, dst)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		if normalized, ok := integralNumbers(body); ok {
			err = decodeNumbers(normalized, dst)
		}
	}
	if err == nil {
		return nil
	}
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		return errInvalidField(fieldPointer(typeErr.Field), "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
	}
	return fmt.Errorf("%w: the body does not match the operation's fields", validate.ErrMalformed)
}

func decodeNumbers(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	return nil
}

// integralNumbers re-encodes body with every number that is an integer in
// int64 range written in integer form (1.0 becomes 1, 1e3 becomes 1000).
func integralNumbers(body []byte) ([]byte, bool) {
	var v any
	if decodeNumbers(body, &v) != nil {
		return nil, false
	}
	b, err := json.Marshal(integralize(v))
	if err != nil {
		return nil, false
	}
	return b, true
}

func integralize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = integralize(c)
		}
	case []any:
		for i, c := range x {
			x[i] = integralize(c)
		}
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x
		}
		f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		if err != nil || !f.IsInt() {
			return x
		}
		if i, acc := f.Int64(); acc == big.Exact {
			return json.Number(strconv.FormatInt(i, 10))
		}
	}
	return v
}

// fieldPointer turns encoding/json's dotted field path into a JSON pointer.
func fieldPointer(field string) string {
	if field == "" {
		return ""
	}
	return "/" + strings.ReplaceAll(field, ".", "/")
}
