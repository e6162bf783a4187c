# embed_file.cmake - turn a file into a C source defining
#   const char <SYMBOL>[]; const unsigned long <SYMBOL>_len;
# Run with cmake -DIN=... -DOUT=... -DSYMBOL=... -P embed_file.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* Generated from ${IN} by model/embed_file.cmake. */\n"
  "const char ${SYMBOL}[] = {\n${body}0x00 };\n"
  "const unsigned long ${SYMBOL}_len = ${len};\n")
