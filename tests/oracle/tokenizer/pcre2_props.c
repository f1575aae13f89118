// pcre2_props: prints the code points PCRE2 (as installed) puts in \p{NAME}; input to
// gen_unicode_delta.cjs. Build: gcc -O2 pcre2_props.c -o pcre2_props -lpcre2-8
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
int main(int argc, char** argv) {
  // prints code points that PCRE2 considers members of \p{argv[1]} 
  int err; PCRE2_SIZE off;
  char pat[64]; snprintf(pat, sizeof pat, "\\p{%s}", argv[1]);
  pcre2_code* re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF|PCRE2_UCP, &err, &off, NULL);
  pcre2_match_data* md = pcre2_match_data_create(1, NULL);
  for (unsigned cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    unsigned char buf[4]; int n;
    if (cp < 0x80) { buf[0]=cp; n=1; }
    else if (cp < 0x800) { buf[0]=0xC0|(cp>>6); buf[1]=0x80|(cp&63); n=2; }
    else if (cp < 0x10000) { buf[0]=0xE0|(cp>>12); buf[1]=0x80|((cp>>6)&63); buf[2]=0x80|(cp&63); n=3; }
    else { buf[0]=0xF0|(cp>>18); buf[1]=0x80|((cp>>12)&63); buf[2]=0x80|((cp>>6)&63); buf[3]=0x80|(cp&63); n=4; }
    if (pcre2_match(re, buf, n, 0, PCRE2_ANCHORED, md, NULL) >= 0) printf("%u\n", cp);
  }
  return 0;
}
