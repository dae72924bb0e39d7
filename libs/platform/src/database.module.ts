import { DynamicModule, Global, Injectable, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { withTimeout, ReadinessCheck } from '@svc/http';
import { DataSource } from 'typeorm';
import { DatabaseSettings, dataSourceOptions } from '@svc/database';

@Injectable()
export class DatabaseReadinessCheck implements ReadinessCheck {
  readonly name = 'postgres';

  constructor(private readonly dataSource: DataSource) {}

  async check(): Promise<void> {
    await withTimeout(this.dataSource.query('SELECT 1'), 2000, 'PostgreSQL');
  }
}

@Global()
@Module({})
export class DatabaseModule {
  /**
   * @param name names the app's data source, so that several apps in one process (`npm start`,
   * the tests) keep theirs apart; the DataSource class stays injectable as an alias of it.
   */
  static forRoot(settings: DatabaseSettings, name: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(settings),
          name,
          retryAttempts: 5,
          retryDelay: 2000,
        }),
      ],
      providers: [
        { provide: DataSource, useExisting: getDataSourceToken(name) },
        DatabaseReadinessCheck,
      ],
      exports: [DataSource, DatabaseReadinessCheck],
    };
  }
}
