/* An ICU common-data package that holds no item, built as libicudata.so.NN in place of the 32 MB one that
 * PySide6's Linux wheels bundle (packaging/linux/icu_stub.py compiles it; ICU_DATA_SYMBOL is icudtNN_dat).
 * libQt6Core links ICU, so the library must be there; with no data, ICU's collators and legacy codecs are
 * not found, and Qt falls back to its own code (code-point order, UTF-8 and Latin-1). */
#include <stdint.h>

#ifndef ICU_DATA_SYMBOL
#error "define ICU_DATA_SYMBOL, as icudt73_dat"
#endif

struct data_info {  /* ICU's UDataInfo */
    uint16_t size, reserved_word;
    uint8_t big_endian, charset_family, sizeof_uchar, reserved_byte;
    uint8_t format[4], format_version[4], data_version[4];
};

struct common_data {  /* a package's header, then its table of contents (count items) */
    uint16_t header_size;
    uint8_t magic1, magic2;
    struct data_info info;
    uint8_t padding[8];
    uint32_t count, reserved;
    uint32_t toc[4];
};

__attribute__((visibility("default"))) const struct common_data ICU_DATA_SYMBOL = {
    32, 0xda, 0x27,
    /* little-endian, ASCII family, 2-byte UChar; format "ToCP" 1.0 */
    {sizeof(struct data_info), 0, 0, 0, 2, 0, {0x54, 0x6f, 0x43, 0x50}, {1, 0, 0, 0}, {0, 0, 0, 0}},
    {0}, 0, 0, {0, 0, 0, 0},
};
