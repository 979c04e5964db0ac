// The store's schema (README "db"). Bump kStoreSchemaVersion with every change and migrate.
#pragma once

#include <cstdint>

namespace trtlens {

// PRAGMA application_id: "trtl", so a foreign SQLite file is told apart from an empty one.
constexpr int32_t kStoreApplicationId = 0x7472746c;
constexpr int kStoreSchemaVersion = 1;  // PRAGMA user_version

extern const char* const kStoreSchema;

}  // namespace trtlens
