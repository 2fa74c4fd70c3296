package ledger

import (
	"strings"

	"github.com/conform-kit/conform/validate"
)

// checkCardNumber accepts 12 to 19 digits passing the Luhn check. Errors
// never quote the number.
func checkCardNumber(number string) error {
	if len(number) < 12 || len(number) > 19 || strings.Trim(number, "0123456789") != "" {
		return ErrInvalidField("/number", "number must be 12 to 19 digits")
	}
	if !validate.LuhnValid(number) {
		return ErrInvalidField("/number", "number fails the Luhn check")
	}
	return nil
}

// cardBrand derives the brand from the BIN.
func cardBrand(number string) string {
	p2 := atoiPrefix(number, 2)
	p3 := atoiPrefix(number, 3)
	p4 := atoiPrefix(number, 4)
	switch {
	case number[0] == '4':
		return "VISA"
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return "MASTERCARD"
	case p2 == 34 || p2 == 37:
		return "AMERICAN_EXPRESS"
	case p4 == 6011, p2 == 65, p3 >= 644 && p3 <= 649:
		return "DISCOVER"
	case p2 == 35:
		return "JCB"
	case p2 == 36, p2 == 38, p3 >= 300 && p3 <= 305:
		return "DINERS_CLUB_INTERNATIONAL"
	case p2 == 62:
		return "CHINA_UNION_PAY"
	}
	return "UNKNOWN"
}

func atoiPrefix(s string, n int) int {
	v := 0
	for _, c := range s[:n] {
		v = v*10 + int(c-'0')
	}
	return v
}
