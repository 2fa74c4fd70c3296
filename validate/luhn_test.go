package validate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/conform-kit/conform/validate"
)

func TestLuhnValid(t *testing.T) {
	tests := []struct {
		name   string
		number string
		want   bool
	}{
		{"visa test number", "4111111111111111", true},
		{"visa test number, last digit off by one", "4111111111111112", false},
		{"mastercard test number", "5555555555554444", true},
		{"amex test number (15 digits)", "378282246310005", true},
		{"ISO 7812 example", "79927398713", true},
		{"ISO 7812 example, every other check digit", "79927398710", false},
		{"two adjacent digits swapped", "79927398731", false},
		{"one digit changed in the middle", "4111111151111111", false},
		{"a doubled digit over 9 (5 counts 1)", "59", true},
		{"single zero", "0", true},
		{"single non-zero digit", "5", false},
		{"empty", "", false},
		{"a space inside", "4111 1111 1111 1111", false},
		{"a letter inside", "41111111111111a1", false},
		{"a sign in front", "+4111111111111111", false},
		{"non-ASCII digit", "411111111111111１", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, validate.LuhnValid(tt.number), "LuhnValid(%q)", tt.number)
		})
	}
}

func TestLuhnCheckDigit(t *testing.T) {
	tests := []struct {
		name      string
		payload   string
		wantDigit byte
		wantOK    bool
	}{
		{"visa test number", "411111111111111", '1', true},
		{"mastercard test number", "555555555555444", '4', true},
		{"ISO 7812 example", "7992739871", '3', true},
		{"sum already a multiple of 10", "0", '0', true},
		{"a doubled digit over 9", "5", '9', true},
		{"empty payload", "", '0', true},
		{"a letter", "41a", 0, false},
		{"a space", "4111 1111", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := validate.LuhnCheckDigit(tt.payload)
			assert.Equal(t, tt.wantOK, ok, "LuhnCheckDigit(%q) ok", tt.payload)
			assert.Equal(t, string(tt.wantDigit), string(d), "LuhnCheckDigit(%q) digit", tt.payload)
			if ok {
				assert.True(t, validate.LuhnValid(tt.payload+string(d)), "LuhnValid(%q + its check digit %q)", tt.payload, d)
			}
		})
	}
}

// TestLuhnCheckDigitOnlyDigitPasses: of the ten numbers a payload can end
// in, LuhnValid accepts exactly the one LuhnCheckDigit names.
func TestLuhnCheckDigitOnlyDigitPasses(t *testing.T) {
	for _, payload := range []string{"", "4", "42", "411111111111111", "37828224631000", "6011000990139424"[:15]} {
		want, ok := validate.LuhnCheckDigit(payload)
		if !assert.True(t, ok, "LuhnCheckDigit(%q) ok", payload) {
			continue
		}
		for d := byte('0'); d <= '9'; d++ {
			assert.Equal(t, d == want, validate.LuhnValid(payload+string(d)), "LuhnValid(%q), check digit %q", payload+string(d), want)
		}
	}
}
