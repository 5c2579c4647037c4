// Command regexpcases prints Go's regexp.Compile verdict on each pattern read from stdin, one
// per line, as `pattern<TAB>OK` or `pattern<TAB><error text>` (core/src/go/regexp_cases.txt):
//
//	cd tests/oracle && go run ./regexpcases < patterns.txt > ../../core/src/go/regexp_cases.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		p := sc.Text()
		if _, err := regexp.Compile(p); err != nil {
			fmt.Printf("%s\t%s\n", p, err)
		} else {
			fmt.Printf("%s\tOK\n", p)
		}
	}
}
